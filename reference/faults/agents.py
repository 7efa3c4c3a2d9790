"""Fault modes of the agents area (reference/agents/)."""

from __future__ import annotations

from typing import Any

from reference.agents import approvals, delegation, policy
from reference.agents.store import Agent
from reference.faults.registry import fault


@fault(
    "agent-redeem-no-access-token",
    at=delegation.REDEEMED,
    clause="§4: redeem returns accessToken",
    part="endpoints",
    caught_by=("test_redeeming_a_device_code_returns_an_access_token",),
)
def token_not_access_token(body: dict[str, Any]) -> dict[str, Any]:
    """redeeming a device code answers the token as `token`, without accessToken"""
    return {("token" if key == "accessToken" else key): value for key, value in body.items()}


@fault(
    "agent-bearer-any-customer",
    at=policy.OWN_CUSTOMER,
    clause="§5 HTTP Bearer: bound to the agent's customer",
    part="auth",
    caught_by=("test_an_agent_token_reaches_its_own_customer_only",),
)
def any_customer_is_own(own: bool, *, agent: Agent, operation: str, owner: str | None) -> bool:
    """an agent's bearer token reads and moves other customers' records"""
    return True


@fault(
    "agent-policy-ignored",
    at=policy.WITHIN_POLICY,
    clause="§5 HTTP Bearer: subject to the agent's policy",
    part="auth",
    caught_by=("test_an_operation_outside_the_agents_policy_is_refused",),
)
def everything_within_policy(
    allowed: bool, *, agent: Agent, operation: str | None, method: str, path: str
) -> bool:
    """an agent's bearer token performs operations outside its policy"""
    return True


@fault(
    "agent-approve-ignored",
    at=approvals.APPROVED_QUOTE,
    clause="§4 Quotes and transactions: POST /transactions/{id}/approve",
    part="endpoints",
    caught_by=("test_an_agent_initiated_transaction_proceeds_once_approved",),
)
def approve_executes_nothing(quote_id: str | None, *, transaction_id: str) -> None:
    """approving an agent-initiated transaction answers 200 and never carries it out"""
    return None
