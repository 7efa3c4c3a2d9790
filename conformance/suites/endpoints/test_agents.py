"""§4 agents: ``POST /agents/device-codes/{code}/redeem`` returns ``accessToken``; ``POST
/transactions/{transactionId}/approve`` approves an agent-initiated transaction. The agent
and its device code come from the adapter (not shown); so does whether an agent's
transactions wait for approval (the waiting state's name is not shown)."""

from __future__ import annotations

import time

import pytest

from conformance.agents.flows import DEVICE_CODE_HOOK, REDEEM_CLAUSE
from conformance.contract import clauses
from conformance.contract.failures import check, fail
from conformance.contract.markers import needs_adapter_hook

pytestmark = [
    pytest.mark.resource("Agent"),
    pytest.mark.writes,
    needs_adapter_hook(DEVICE_CODE_HOOK),
]

APPROVE_CLAUSE = clauses.QUOTES_ENDPOINTS + " — POST /transactions/{transactionId}/approve"
MOVED_ON = ("PROCESSING", "COMPLETED", "FAILED")


@pytest.mark.requirement("AGENT-DEVICE-CODE-REDEEM")
def test_redeeming_a_device_code_returns_an_access_token(agents, money_customers):
    customer = money_customers.approved_customer(["USD"])
    session = agents.session(customer["id"])  # checks 2xx and a non-empty accessToken
    check(bool(session.token), REDEEM_CLAUSE, "accessToken is returned", observed="<empty>")


@pytest.mark.requirement("TRANSACTION-APPROVE-AGENT")
def test_an_agent_initiated_transaction_proceeds_once_approved(
    agents, money_customers, external_accounts, funding, quotes, client, profile
):
    customer = money_customers.approved_customer(["USD"])
    source = funding.funded_account(customer, "USD", 100_000)
    destination = external_accounts.external_account(customer["id"], "USD")
    agent = agents.session(customer["id"])
    body = {
        "source": {"sourceType": "ACCOUNT", "accountId": source["id"]},
        "destination": {"destinationType": "ACCOUNT", "accountId": destination["id"]},
        "lockedCurrencySide": "SENDING",
        "lockedCurrencyAmount": 1_000,
    }
    made = agent.request("POST", "/quotes", json=body)
    quote = made.json if 200 <= made.status < 300 else quotes.quote(body)
    if not isinstance(quote, dict) or not isinstance(quote.get("id"), str):
        fail(clauses.QUOTES_ENDPOINTS + " — POST /quotes", "a quote has an id", observed=quote)
    executed = agent.request("POST", f"/quotes/{quote['id']}/execute")
    if not 200 <= executed.status < 300:
        pytest.skip(f"this agent may not execute its customer's quote ({executed.status})")
    answered = executed.json if executed.content else None
    transaction_id = quote.get("transactionId") or (
        answered.get("transactionId") if isinstance(answered, dict) else None
    )
    check(
        isinstance(transaction_id, str),
        clauses.QUOTE,
        "transactionId is present once the transaction exists",
        observed=quote,
    )
    before = client.get(f"/transactions/{transaction_id}").json
    if isinstance(before, dict) and before.get("status") in MOVED_ON:
        pytest.skip("the agent's transaction went ahead without approval: nothing to approve")
    approved = client.post(f"/transactions/{transaction_id}/approve", validate=False)
    check(
        200 <= approved.status < 300,
        APPROVE_CLAUSE,
        "the platform approves a transaction its agent initiated",
        expected="2xx",
        observed=(approved.status, approved.content[:300]),
        exchange=approved.exchange,
    )
    deadline = time.monotonic() + profile.webhook_timeout
    while True:
        now = client.get(f"/transactions/{transaction_id}").json
        status = now.get("status") if isinstance(now, dict) else now
        if status in MOVED_ON or time.monotonic() >= deadline:
            break
        time.sleep(0.1)
    check(
        status in MOVED_ON,
        APPROVE_CLAUSE,
        "an approved agent-initiated transaction goes ahead (PROCESSING, then COMPLETED or FAILED)",
        observed={
            "before approval": before.get("status") if isinstance(before, dict) else before,
            "after": status,
        },
    )
