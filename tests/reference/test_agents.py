"""Agents in the reference (SANDBOX.md, "Cards, agents and invitations"): device codes,
Bearer tokens bound to the customer and the policy, approval of agent-initiated payments."""

from __future__ import annotations

from typing import Any

import httpx

from .customer_helpers import missing_records
from .money_helpers import approved, external, funded, quote, transaction
from .reference_helpers import RunningSandbox, invalid_fields

NOBODY = "Customer:00000000-0000-4000-8000-000000000000"  # well formed, no such customer


def agent_token(client: httpx.Client, customer_id: str, **body: Any) -> str:
    agent = client.post("/agents", json={"customerId": customer_id, **body})
    assert agent.status_code == 201, agent.text
    code = client.post(f"/agents/{agent.json()['id']}/device-codes").json()["deviceCode"]
    redeemed = client.post(f"/agents/device-codes/{code}/redeem")
    assert redeemed.status_code == 200, redeemed.text
    assert client.post(f"/agents/device-codes/{code}/redeem").status_code == 409
    return str(redeemed.json()["accessToken"])


def test_an_agent_for_no_customer_is_404_before_its_policy_is_judged(
    client: httpx.Client,
) -> None:
    bad_policy = {"policy": {"operations": ["EVERYTHING"]}}
    unknown = client.post("/agents", json={"customerId": NOBODY, **bad_policy})
    assert missing_records(unknown) == {"customerId": "UNKNOWN_CUSTOMER"}
    both = client.post("/agents", json=bad_policy)  # every invalid field at once
    assert invalid_fields(both) == {"customerId", "policy.operations"}


def bearer(sandbox: RunningSandbox, token: str) -> httpx.Client:
    return httpx.Client(base_url=sandbox.base_url, headers={"Authorization": f"Bearer {token}"})


def test_a_bearer_token_reaches_its_customer_only(
    client: httpx.Client, sandbox: RunningSandbox
) -> None:
    mine, other = approved(client), approved(client, "Bo Chen")
    with bearer(sandbox, agent_token(client, mine.id)) as agent:
        assert agent.get(f"/customers/{mine.id}").json()["id"] == mine.id
        assert agent.get(f"/customers/{other.id}").status_code == 404
        params = {"customerId": other.id}
        assert agent.get("/customers/internal-accounts", params=params).status_code == 404
        assert agent.patch("/config", json={"umaDomain": "x.example"}).status_code == 403
    with bearer(sandbox, "agt_forged") as forged:
        refused = forged.get(f"/customers/{mine.id}")
        assert refused.status_code == 401 and refused.json()["reason"]


def test_the_policy_limits_operations(client: httpx.Client, sandbox: RunningSandbox) -> None:
    holder = funded(client, 10_000)
    token = agent_token(client, holder.id, policy={"operations": ["READ_CUSTOMER"]})
    destination = external(client, holder.id)["id"]
    body = {
        "source": {"sourceType": "ACCOUNT", "accountId": holder.account_id()},
        "destination": {"destinationType": "ACCOUNT", "accountId": destination},
        "lockedCurrencySide": "SENDING",
        "lockedCurrencyAmount": 100,
    }
    with bearer(sandbox, token) as agent:
        assert agent.get(f"/customers/{holder.id}").status_code == 200
        refused = agent.post("/quotes", json=body)
        assert refused.status_code == 403 and refused.json()["code"] == "AGENT_POLICY_DENIED"


def test_an_agent_payment_waits_for_the_platforms_approval(
    client: httpx.Client, sandbox: RunningSandbox
) -> None:
    holder = funded(client, 10_000)
    destination = external(client, holder.id)["id"]
    with bearer(sandbox, agent_token(client, holder.id)) as agent:
        made = quote(agent, holder.account_id(), destination)
        held = agent.post(f"/quotes/{made['id']}/execute")
        assert held.status_code == 202, held.text
        assert agent.post(f"/transactions/{made['transactionId']}/approve").status_code == 403
    assert transaction(client, made["transactionId"])["status"] == "PENDING"
    approved_ = client.post(f"/transactions/{made['transactionId']}/approve")
    assert approved_.status_code == 200, approved_.text
    assert approved_.json()["status"] in ("PROCESSING", "COMPLETED")
    again = client.post(f"/transactions/{made['transactionId']}/approve")
    assert again.status_code == 409
