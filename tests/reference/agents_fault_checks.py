"""Checks for the fault modes of ``reference/faults/agents.py``: agents: redeem, bearer binding
and policy, approval; ``test_faults`` adds them to its ``CHECKS``."""

from __future__ import annotations

import httpx

from .money_helpers import approved, external, funded, quote, transaction
from .reference_helpers import FaultChecks, RunningSandbox, WebhookReceiver

AGENTS_CHECKS = FaultChecks()
check = AGENTS_CHECKS.add


def _redeemed(client: httpx.Client, customer_id: str) -> dict[str, str]:
    agent = client.post("/agents", json={"customerId": customer_id}).json()
    code = client.post(f"/agents/{agent['id']}/device-codes").json()["deviceCode"]
    body: dict[str, str] = client.post(f"/agents/device-codes/{code}/redeem").json()
    return body


def _bearer(sandbox: RunningSandbox, token: str) -> httpx.Client:
    return httpx.Client(base_url=sandbox.base_url, headers={"Authorization": f"Bearer {token}"})


@check("agent-redeem-no-access-token")
def _(sandbox: RunningSandbox, receiver: WebhookReceiver) -> None:
    with sandbox.client() as client:
        answer = _redeemed(client, approved(client).id)
        assert "accessToken" not in answer and answer["token"]


@check("agent-bearer-any-customer")
def _(sandbox: RunningSandbox, receiver: WebhookReceiver) -> None:
    with sandbox.client() as client:
        mine, other = approved(client), approved(client, "Bo Chen")
        token = _redeemed(client, mine.id)["accessToken"]
        with _bearer(sandbox, token) as agent:
            assert agent.get(f"/customers/{other.id}").status_code == 200


@check("agent-policy-ignored")
def _(sandbox: RunningSandbox, receiver: WebhookReceiver) -> None:
    with sandbox.client() as client:
        holder = approved(client)
        token = _redeemed(client, holder.id)["accessToken"]
        with _bearer(sandbox, token) as agent:
            assert external(agent, holder.id)["customerId"] == holder.id


@check("agent-approve-ignored")
def _(sandbox: RunningSandbox, receiver: WebhookReceiver) -> None:
    with sandbox.client() as client:
        holder = funded(client, 10_000)
        made = quote(client, holder.account_id(), external(client, holder.id)["id"])
        with _bearer(sandbox, _redeemed(client, holder.id)["accessToken"]) as agent:
            assert agent.post(f"/quotes/{made['id']}/execute").status_code == 202
        assert client.post(f"/transactions/{made['transactionId']}/approve").status_code == 200
        assert transaction(client, made["transactionId"])["status"] == "PENDING"
