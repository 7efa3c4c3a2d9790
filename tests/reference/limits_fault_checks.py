"""Checks for the fault modes of limits, refused rates, compliance holds and the shapes of
money resources; ``test_faults`` adds them to its ``CHECKS``."""

from __future__ import annotations

from typing import Any

import httpx

from reference.payments.limits import DAILY_LIMIT_USD_CENTS, SIZE_LIMIT_USD_CENTS

from .money_helpers import (
    available,
    error_code,
    execute,
    external,
    funded,
    quote,
    quote_body,
    transaction,
)
from .reference_helpers import FaultChecks, RunningSandbox, WebhookReceiver

LIMIT_CHECKS = FaultChecks()
check = LIMIT_CHECKS.add


@check("size-limit-unenforced")
def _(sandbox: RunningSandbox, receiver: WebhookReceiver) -> None:
    with sandbox.client() as client:
        holder = funded(client, 2 * SIZE_LIMIT_USD_CENTS)
        destination = external(client, holder.id)["id"]
        over = quote(client, holder.account_id(), destination, amount=SIZE_LIMIT_USD_CENTS + 1)
        execute(client, over["id"])
        assert available(client, holder.id) == SIZE_LIMIT_USD_CENTS - 1


@check("daily-limit-unenforced")
def _(sandbox: RunningSandbox, receiver: WebhookReceiver) -> None:
    with sandbox.client() as client:
        holder = funded(client, DAILY_LIMIT_USD_CENTS + SIZE_LIMIT_USD_CENTS)
        destination = external(client, holder.id)["id"]
        for _ in range(DAILY_LIMIT_USD_CENTS // SIZE_LIMIT_USD_CENTS + 1):
            body = quote(client, holder.account_id(), destination, amount=SIZE_LIMIT_USD_CENTS)
            execute(client, body["id"])
        assert available(client, holder.id) == 0


@check("rate-refusal-debits")
def _(sandbox: RunningSandbox, receiver: WebhookReceiver) -> None:
    with sandbox.client() as client:
        holder = funded(client, 50_000)
        body = quote(client, holder.account_id(), external(client, holder.id)["id"])
        client.post(f"/sandbox/quotes/{body['id']}/refuse-rate").raise_for_status()
        answer = client.post(f"/quotes/{body['id']}/execute")
        assert error_code(answer, 409) == "QUOTE_RATE_UNAVAILABLE"
        assert available(client, holder.id) == 40_000


@check("pending-reason-missing")
def _(sandbox: RunningSandbox, receiver: WebhookReceiver) -> None:
    with sandbox.client() as client:
        holder = funded(client, 50_000)
        body = quote(client, holder.account_id(), external(client, holder.id, suffix="077")["id"])
        execute(client, body["id"])
        held = transaction(client, body["transactionId"])
        assert held["status"] == "PROCESSING" and held.get("pendingReason") is None


def _paid(client: httpx.Client) -> tuple[dict[str, Any], dict[str, Any]]:
    holder = funded(client, 50_000)
    return holder.customer, quote(client, holder.account_id(), external(client, holder.id)["id"])


@check("quote-amount-as-string")
def _(sandbox: RunningSandbox, receiver: WebhookReceiver) -> None:
    with sandbox.client() as client:
        _, created = _paid(client)
        assert created["totalSendingAmount"] == "10000"
        assert client.get(f"/quotes/{created['id']}").json()["totalSendingAmount"] == 10_000


@check("quote-status-repeated")
def _(sandbox: RunningSandbox, receiver: WebhookReceiver) -> None:
    with sandbox.client() as client:
        holder = funded(client, 50_000)
        body = quote_body(holder.account_id(), external(client, holder.id)["id"])
        response = client.post("/quotes", json=body)
        assert response.status_code == 201
        assert response.content.startswith(b'{"status": "COMPLETED", ')
        assert response.content.count(b'"status":') == 2
        assert response.json()["status"] == "PENDING"  # the last value is the quote's own
        read = client.get(f"/quotes/{response.json()['id']}")
        assert read.content.count(b'"status":') == 1  # only the creation's answer repeats it


@check("transaction-id-unprefixed")
def _(sandbox: RunningSandbox, receiver: WebhookReceiver) -> None:
    with sandbox.client() as client:
        customer, created = _paid(client)
        listed = client.get("/transactions", params={"customerId": customer["id"]}).json()
        [item] = listed["data"]
        assert item["id"] == str(created["transactionId"]).removeprefix("Transaction:")


@check("quote-description-null")
def _(sandbox: RunningSandbox, receiver: WebhookReceiver) -> None:
    with sandbox.client() as client:
        _, created = _paid(client)  # sent without a description
        read = client.get(f"/quotes/{created['id']}").json()
        assert "description" in created and created["description"] is None
        assert "description" in read and read["description"] is None


@check("transaction-description-null")
def _(sandbox: RunningSandbox, receiver: WebhookReceiver) -> None:
    with sandbox.client() as client:
        customer, created = _paid(client)
        assert "description" not in created  # quotes are spared
        listed = client.get("/transactions", params={"customerId": customer["id"]}).json()
        [item] = listed["data"]
        assert "description" in item and item["description"] is None


@check("internal-account-balance-missing")
def _(sandbox: RunningSandbox, receiver: WebhookReceiver) -> None:
    with sandbox.client() as client:
        accounts = client.get("/customers/internal-accounts").json()["data"]
        assert accounts and all("availableBalance" not in a for a in accounts)
        assert all("totalBalance" in a for a in accounts)


@check("external-account-bad-status")
def _(sandbox: RunningSandbox, receiver: WebhookReceiver) -> None:
    with sandbox.client() as client:
        holder = funded(client, 1_000)
        assert external(client, holder.id)["status"] == "VERIFIED_ACTIVE"


def _listed(client: httpx.Client, customer_id: str) -> dict[str, Any]:
    [item] = client.get("/transactions", params={"customerId": customer_id}).json()["data"]
    return item


@check("listed-currency-decimals-off")
def _(sandbox: RunningSandbox, receiver: WebhookReceiver) -> None:
    with sandbox.client() as client:
        customer, created = _paid(client)
        item = _listed(client, customer["id"])
    assert created["sendingCurrency"]["decimals"] == 2  # quotes state USD right
    assert item["sentAmount"]["currency"] == {**created["sendingCurrency"], "decimals": 3}
    assert item["receivedAmount"]["currency"]["decimals"] == 2  # only sentAmount is off


@check("completed-listed-as-processing-again")
def _(sandbox: RunningSandbox, receiver: WebhookReceiver) -> None:
    with sandbox.client() as client:
        customer, created = _paid(client)
        assert _listed(client, customer["id"])["status"] == "PENDING"  # not completed: spared
        execute(client, created["id"])
        reads = [_listed(client, customer["id"])["status"] for _ in range(4)]
    assert reads == ["COMPLETED", "PROCESSING", "COMPLETED", "PROCESSING"]


@check("listed-received-amount-short")
def _(sandbox: RunningSandbox, receiver: WebhookReceiver) -> None:
    with sandbox.client() as client:
        customer, created = _paid(client)
        item = _listed(client, customer["id"])
    assert item["receivedAmount"]["amount"] == created["totalReceivingAmount"] - 1
    assert item["sentAmount"]["amount"] == created["totalSendingAmount"]
