"""Fault modes of the agents area (reference/agents/)."""

from __future__ import annotations

from reference.faults.legacy import legacy

legacy(
    "agent-redeem-no-access-token",
    breaks="redeeming a device code answers the token as `token`, without accessToken",
    clause="§4: redeem returns accessToken",
    part="endpoints",
    caught_by=("test_redeeming_a_device_code_returns_an_access_token",),
)
legacy(
    "agent-bearer-any-customer",
    breaks="an agent's bearer token reads and moves other customers' records",
    clause="§5 HTTP Bearer: bound to the agent's customer",
    part="auth",
    caught_by=("test_an_agent_token_reaches_its_own_customer_only",),
)
legacy(
    "agent-policy-ignored",
    breaks="an agent's bearer token performs operations outside its policy",
    clause="§5 HTTP Bearer: subject to the agent's policy",
    part="auth",
    caught_by=("test_an_operation_outside_the_agents_policy_is_refused",),
)
legacy(
    "agent-approve-ignored",
    breaks="approving an agent-initiated transaction answers 200 and never carries it out",
    clause="§4 Quotes and transactions: POST /transactions/{id}/approve",
    part="endpoints",
    caught_by=("test_an_agent_initiated_transaction_proceeds_once_approved",),
)
