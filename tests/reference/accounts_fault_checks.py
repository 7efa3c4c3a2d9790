"""Checks for the fault modes of ``reference/faults/accounts.py``: internal and external
accounts: idempotency, ownership, states, payouts; ``test_faults`` adds them to its
``CHECKS``."""

from __future__ import annotations

from typing import Any

import httpx

from .customer_helpers import complete_business, created, individual, submit
from .money_helpers import (
    approved,
    available,
    execute,
    external,
    fund,
    funded,
    internal_accounts,
    quote,
    quote_body,
    transaction,
)
from .reference_helpers import FaultChecks, RunningSandbox, WebhookReceiver
from .test_jit_uma_onchain import jit_body

ACCOUNTS_CHECKS = FaultChecks()
check = ACCOUNTS_CHECKS.add


PATH = "/internal-accounts"


def _body(customer_id: str, destination: str, **extra: Any) -> dict[str, Any]:
    return {
        "type": "RULE_BASED",
        "currency": "USD",
        "customerId": customer_id,
        "sweepRule": {"destinationAccountId": destination},
        **extra,
    }


def _holder_body(client: httpx.Client, **extra: Any) -> dict[str, Any]:
    holder = approved(client)
    return _body(holder.id, holder.account_id("USD"), **extra)


def _pending(client: httpx.Client) -> dict[str, Any]:
    return external(client, funded(client).id, suffix="008")


def _prove(client: httpx.Client, account: dict[str, Any], suffix: str) -> httpx.Response:
    base = f"/customers/external-accounts/{account['id']}"
    payload = client.post(f"{base}/challenge").json()["payloadToSign"] + suffix
    signed = client.post(
        f"/sandbox/external-accounts/{account['id']}/sign", json={"payload": payload}
    )
    return client.post(f"{base}/verify", json=signed.json())


@check("rule-based-idempotency-ignored")
def _(sandbox: RunningSandbox, receiver: WebhookReceiver) -> None:
    with sandbox.client() as client:
        body = _holder_body(client)
        first = client.post(PATH, json=body, headers={"Idempotency-Key": "k1"})
        again = client.post(PATH, json=body, headers={"Idempotency-Key": "k1"})
        assert again.status_code == 201 and again.json()["id"] != first.json()["id"]


@check("rule-based-conflict-accepted")
def _(sandbox: RunningSandbox, receiver: WebhookReceiver) -> None:
    with sandbox.client() as client:
        body = _holder_body(client)
        client.post(PATH, json=body, headers={"Idempotency-Key": "k2"})
        other = client.post(PATH, json={**body, "label": "x"}, headers={"Idempotency-Key": "k2"})
        assert other.status_code == 201


@check("rule-based-no-sweep")
def _(sandbox: RunningSandbox, receiver: WebhookReceiver) -> None:
    with sandbox.client() as client:
        account = created(client.post(PATH, json=_holder_body(client)))
        assert fund(client, account["id"], 500)["totalBalance"]["amount"] == 500


@check("rule-based-business-allowed")
def _(sandbox: RunningSandbox, receiver: WebhookReceiver) -> None:
    with sandbox.client() as client:
        company, _ = complete_business(client, "REG-1004")
        assert submit(client, company["id"])["verificationStatus"] == "APPROVED"
        listed = client.get("/customers/internal-accounts", params={"customerId": company["id"]})
        usd = next(a for a in listed.json()["data"] if a["currency"] == "USD")["id"]
        assert client.post(PATH, json=_body(company["id"], usd)).status_code == 201


@check("rule-based-any-currency")
def _(sandbox: RunningSandbox, receiver: WebhookReceiver) -> None:
    with sandbox.client() as client:
        response = client.post(PATH, json=_holder_body(client, currency="EUR"))
        assert response.status_code == 201


@check("rule-based-feature-ignored")
def _(sandbox: RunningSandbox, receiver: WebhookReceiver) -> None:
    with sandbox.client("second") as client:
        assert client.post(PATH, json=_holder_body(client)).status_code == 201


@check("ownership-event-missing")
def _(sandbox: RunningSandbox, receiver: WebhookReceiver) -> None:
    with sandbox.client() as client:
        client.patch("/config", json={"webhookEndpoint": receiver.url})
        account = _pending(client)
        assert _prove(client, account, "").json()["status"] == "ACTIVE"
        client.post("/sandbox/webhooks/test")
        receiver.wait_for(lambda ds: any(b"TEST" in d.body for d in ds))
        assert not [d for d in receiver.deliveries if b"EXTERNAL_ACCOUNT" in d.body]


@check("ownership-failed-becomes-active")
def _(sandbox: RunningSandbox, receiver: WebhookReceiver) -> None:
    with sandbox.client() as client:
        assert _prove(client, _pending(client), "!").json()["status"] == "ACTIVE"


@check("ownership-event-stale-status")
def _(sandbox: RunningSandbox, receiver: WebhookReceiver) -> None:
    with sandbox.client() as client:
        client.patch("/config", json={"webhookEndpoint": receiver.url})
        account = _pending(client)
        assert _prove(client, account, "").json()["status"] == "ACTIVE"
        mine = account["id"].encode()
        events = receiver.wait_for(lambda ds: any(mine in d.body for d in ds))
        shown = [d.json()["data"] for d in events if mine in d.body]
        assert [data["status"] for data in shown] == ["PENDING_OWNERSHIP_VERIFICATION"]


@check("rule-based-lengths-unchecked")
def _(sandbox: RunningSandbox, receiver: WebhookReceiver) -> None:
    with sandbox.client() as client:
        body = _holder_body(client, label="L" * 256)
        response = client.post(PATH, json=body, headers={"Idempotency-Key": "k" * 256})
        assert response.status_code == 201


@check("pull-source-scenario-ignored")
def _(sandbox: RunningSandbox, receiver: WebhookReceiver) -> None:
    with sandbox.client() as client:
        holder = approved(client)
        pulled = external(client, holder.id, "US_ACCOUNT", suffix="099")["id"]
        quote = created(client.post("/quotes", json=quote_body(pulled, holder.account_id())))
        client.post(f"/quotes/{quote['id']}/execute").raise_for_status()
        assert transaction(client, quote["transactionId"])["status"] == "COMPLETED"


@check("frozen-account-sends")
def _(sandbox: RunningSandbox, receiver: WebhookReceiver) -> None:
    with sandbox.client() as client:
        holder = funded(client, 50_000)
        destination = external(client, holder.id)["id"]
        earlier = quote(client, holder.account_id(), destination)
        client.post(f"/sandbox/internal-accounts/{holder.account_id()}/freeze").raise_for_status()
        execute(client, earlier["id"])
        execute(client, quote(client, holder.account_id(), destination)["id"])
        assert available(client, holder.id) == 30_000


@check("closed-account-receives")
def _(sandbox: RunningSandbox, receiver: WebhookReceiver) -> None:
    with sandbox.client() as client:
        holder = funded(client, 50_000)
        client.post(f"/sandbox/internal-accounts/{holder.account_id()}/close").raise_for_status()
        fund(client, holder.account_id(), 700)
        assert available(client, holder.id) == 50_700


@check("provisioning-failure-active")
def _(sandbox: RunningSandbox, receiver: WebhookReceiver) -> None:
    with sandbox.client() as client:
        customer = created(client.post("/customers", json=individual("Ann Lee")))
        account_id = internal_accounts(client, customer["id"])["USD"]["id"]
        answer = client.post(f"/sandbox/internal-accounts/{account_id}/fail-provisioning")
        assert answer.status_code == 200 and answer.json()["status"] == "ACTIVE", answer.text


@check("jit-quote-executable")
def _(sandbox: RunningSandbox, receiver: WebhookReceiver) -> None:
    with sandbox.client() as client:
        holder = approved(client)
        jit = created(client.post("/quotes", json=jit_body(holder.id, holder.account_id())))
        assert client.post(f"/quotes/{jit['id']}/execute").status_code == 200
        assert available(client, holder.id) == jit["totalReceivingAmount"]


@check("jit-immediate-execute-accepted")
def _(sandbox: RunningSandbox, receiver: WebhookReceiver) -> None:
    with sandbox.client() as client:
        holder = approved(client)
        body = jit_body(holder.id, holder.account_id(), immediatelyExecute=True)
        assert created(client.post("/quotes", json=body))["status"] == "COMPLETED"
