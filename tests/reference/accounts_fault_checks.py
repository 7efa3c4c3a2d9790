"""Checks for the fault modes of rule-based accounts, ownership verification, payout
scenarios and incoming payments; ``test_faults`` adds them to its ``CHECKS``."""

from __future__ import annotations

import time
from typing import Any

import httpx

from .customer_helpers import complete_business, created, submit
from .money_helpers import (
    approved,
    execute,
    external,
    fund,
    funded,
    quote,
    quote_body,
    transaction,
)
from .reference_helpers import FaultChecks, RunningSandbox, WebhookReceiver

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


def _pending(client: httpx.Client) -> dict[str, Any]:
    return external(client, funded(client).id, suffix="008")


def _prove(client: httpx.Client, account: dict[str, Any], suffix: str) -> httpx.Response:
    base = f"/customers/external-accounts/{account['id']}"
    payload = client.post(f"{base}/challenge").json()["payloadToSign"] + suffix
    signed = client.post(
        f"/sandbox/external-accounts/{account['id']}/sign", json={"payload": payload}
    )
    return client.post(f"{base}/verify", json=signed.json())


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


@check("incoming-refund-event-missing")
def _(sandbox: RunningSandbox, receiver: WebhookReceiver) -> None:
    with sandbox.client() as client:
        client.patch("/config", json={"webhookEndpoint": receiver.url})
        holder = approved(client)
        path = f"/sandbox/internal-accounts/{holder.account_id()}/returned-deposit"
        assert client.post(path, json={"amount": 100}).json()["refund"]["status"] == "COMPLETED"
        client.post("/sandbox/webhooks/test")
        receiver.wait_for(lambda ds: any(b"TEST" in d.body for d in ds))
        assert not [d for d in receiver.deliveries if b"INCOMING_PAYMENT" in d.body]


@check("slow-payment-never-settles")
def _(sandbox: RunningSandbox, receiver: WebhookReceiver) -> None:
    with sandbox.client() as client:
        holder = funded(client)
        destination = external(client, holder.id, suffix="003")["id"]
        executed = execute(client, quote(client, holder.account_id(), destination)["id"])
        time.sleep(2.0)  # past the 1 s a slow payment takes when the fault is off
        assert transaction(client, executed["transactionId"])["status"] == "PROCESSING"


@check("rule-based-lengths-unchecked")
def _(sandbox: RunningSandbox, receiver: WebhookReceiver) -> None:
    with sandbox.client() as client:
        body = _holder_body(client, label="L" * 256)
        response = client.post(PATH, json=body, headers={"Idempotency-Key": "k" * 256})
        assert response.status_code == 201


@check("ownership-pending-unusable")
def _(sandbox: RunningSandbox, receiver: WebhookReceiver) -> None:
    with sandbox.client() as client:
        holder = funded(client)
        account = external(client, holder.id, suffix="008")
        response = client.post("/quotes", json=quote_body(holder.account_id(), account["id"], 100))
        assert response.status_code == 409  # refused for the account's state
