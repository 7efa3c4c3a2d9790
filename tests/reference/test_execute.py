"""``POST /quotes/{id}/execute``, settlement, failure with automatic refund, events,
``immediatelyExecute``, expiry, and ``GET /transactions`` with its filters."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from datetime import timedelta

import httpx
import pytest

from .money_helpers import (
    CONCURRENT,
    approved,
    available,
    error_code,
    execute,
    external,
    fund,
    funded,
    internal_accounts,
    parse,
    payment_events,
    quote,
    quote_body,
    race,
    transaction,
    wait_past,
)
from .reference_helpers import RunningSandbox, WebhookReceiver, signature_valid


def test_execute_debits_once_and_settles(client: httpx.Client) -> None:
    holder = funded(client, 100_000)
    destination = external(client, holder.id, "IBAN_ACCOUNT")["id"]
    body = quote(client, holder.account_id(), destination, amount=10_000)
    answered = execute(client, body["id"])
    assert answered["status"] == "PROCESSING"
    assert answered["transactionId"] == body["transactionId"]
    assert available(client, holder.id) == 90_000
    done = transaction(client, body["transactionId"])
    assert done["status"] == "COMPLETED" and done["settledAt"]
    assert parse(done["settledAt"]) >= parse(done["createdAt"])
    assert (done["type"], done["direction"]) == ("OUTGOING", "DEBIT")
    assert done["sentAmount"]["amount"] == 10_000
    assert done["receivedAmount"]["amount"] == body["totalReceivingAmount"]
    assert done["receivedAmount"]["currency"]["code"] == "EUR"
    assert done["platformFees"] == {"amount": 0, "currency": body["sendingCurrency"]}
    assert "failureReason" not in done and "refund" not in done  # absent, never null (§2)
    assert client.get(f"/quotes/{body['id']}").json()["status"] == "COMPLETED"
    again = client.post(f"/quotes/{body['id']}/execute")
    assert error_code(again, 409) == "QUOTE_ALREADY_EXECUTED"
    assert available(client, holder.id) == 90_000


def test_internal_destination_is_credited(client: httpx.Client) -> None:
    holder = funded(client, 20_000)
    body = quote(client, holder.account_id(), holder.account_id("USDC"), amount=10_000)
    execute(client, body["id"])
    accounts = internal_accounts(client, holder.id)
    assert accounts["USD"]["totalBalance"]["amount"] == 10_000
    assert accounts["USDC"]["availableBalance"]["amount"] == body["totalReceivingAmount"]
    assert accounts["USDC"]["totalBalance"]["amount"] == 9_920 * 10_000


def test_insufficient_funds(client: httpx.Client) -> None:
    holder = funded(client, 9_999)
    destination = external(client, holder.id)["id"]
    body = quote(client, holder.account_id(), destination, amount=10_000)
    response = client.post(f"/quotes/{body['id']}/execute")
    assert error_code(response, 400) == "INSUFFICIENT_FUNDS"
    assert client.get(f"/quotes/{body['id']}").json()["status"] == "PENDING"
    assert available(client, holder.id) == 9_999
    fund(client, holder.account_id(), 1)
    assert execute(client, body["id"])["status"] == "PROCESSING"
    assert available(client, holder.id) == 0


def test_concurrent_executes_debit_once(sandbox: RunningSandbox, client: httpx.Client) -> None:
    holder = funded(client, 1_000_000)
    destination = external(client, holder.id)["id"]
    body = quote(client, holder.account_id(), destination, amount=10_000)
    assert race(sandbox, body["id"]) == Counter({200: 1, 409: CONCURRENT - 1})
    assert available(client, holder.id) == 990_000


def test_returned_payout_fails_and_is_refunded(
    client: httpx.Client, receiver: WebhookReceiver, sandbox: RunningSandbox
) -> None:
    client.patch("/config", json={"webhookEndpoint": receiver.url})
    holder = funded(client, 50_000)
    destination = external(client, holder.id, "US_ACCOUNT", "099")["id"]
    body = quote(client, holder.account_id(), destination, amount=10_000)
    assert execute(client, body["id"])["status"] == "PROCESSING"
    failed = transaction(client, body["transactionId"])
    assert failed["status"] == "FAILED"
    assert failed["failureReason"] == "PAYOUT_RETURNED"
    assert failed["refund"]["status"] == "COMPLETED" and failed["refund"]["reference"]
    assert "settledAt" not in failed
    assert available(client, holder.id) == 50_000  # the whole debit came back
    events = payment_events(receiver, body["transactionId"], 4)
    assert [e["type"] for e in events] == [
        "OUTGOING_PAYMENT.PROCESSING",
        "OUTGOING_PAYMENT.FAILED",
        "OUTGOING_PAYMENT.REFUND_PENDING",
        "OUTGOING_PAYMENT.REFUND_COMPLETED",
    ]
    stamps = [parse(e["timestamp"]) for e in events]
    assert stamps == sorted(set(stamps))  # strictly increasing
    assert [e["data"]["status"] for e in events] == ["PROCESSING", "FAILED", "FAILED", "FAILED"]
    assert [e["data"].get("refund", {}).get("status") for e in events] == [
        None,
        None,
        "PENDING",
        "COMPLETED",
    ]
    key = sandbox.banner["webhook_public_key_pem"]
    deliveries = [
        d
        for d in receiver.deliveries
        if d.json().get("data", {}).get("id") == body["transactionId"]
    ]
    assert all(signature_valid(key, d.body, d.headers["X-Service-Signature"]) for d in deliveries)


def test_completed_payout_events(client: httpx.Client, receiver: WebhookReceiver) -> None:
    client.patch("/config", json={"webhookEndpoint": receiver.url})
    holder = funded(client, 50_000)
    destination = external(client, holder.id, "US_ACCOUNT", "003")["id"]  # slow: at once here
    body = quote(client, holder.account_id(), destination, amount=10_000)
    execute(client, body["id"])
    events = payment_events(receiver, body["transactionId"], 2)
    assert [e["type"] for e in events] == [
        "OUTGOING_PAYMENT.PROCESSING",
        "OUTGOING_PAYMENT.COMPLETED",
    ]
    assert events[1]["data"] == transaction(client, body["transactionId"])


def test_timeout_scenario_stays_processing(client: httpx.Client) -> None:
    holder = funded(client, 50_000)
    destination = external(client, holder.id, "WALLET", "005")["id"]
    body = quote(client, holder.account_id(), destination, amount=10_000)
    execute(client, body["id"])
    assert transaction(client, body["transactionId"])["status"] == "PROCESSING"
    assert client.get(f"/quotes/{body['id']}").json()["status"] == "PROCESSING"
    assert available(client, holder.id) == 40_000


def test_immediately_execute(client: httpx.Client) -> None:
    holder = funded(client, 50_000)
    destination = external(client, holder.id)["id"]
    body = quote(client, holder.account_id(), destination, amount=10_000, immediatelyExecute=True)
    assert body["status"] == "COMPLETED"
    assert transaction(client, body["transactionId"])["status"] == "COMPLETED"
    assert client.get(f"/quotes/{body['id']}").json()["status"] == "COMPLETED"
    assert available(client, holder.id) == 40_000
    assert error_code(client.post(f"/quotes/{body['id']}/execute"), 409) == "QUOTE_ALREADY_EXECUTED"
    broke = approved(client, "Bo Chen")
    response = client.post(
        "/quotes",
        json=quote_body(broke.account_id(), broke.account_id("USDC"), immediatelyExecute=True),
    )
    assert error_code(response, 400) == "INSUFFICIENT_FUNDS"
    listed = client.get("/transactions", params={"customerId": broke.id}).json()
    assert listed == {"data": [], "nextCursor": None}  # nothing was left behind


def test_transactions_list_filters(client: httpx.Client, second_client: httpx.Client) -> None:
    holder = funded(client, 50_000)
    destination = external(client, holder.id)["id"]
    done = quote(client, holder.account_id(), destination, amount=1_000)
    execute(client, done["id"])
    waiting = quote(client, holder.account_id(), destination, amount=2_000)

    def ids(**params: str) -> list[str]:
        response = client.get("/transactions", params={"customerId": holder.id, **params})
        assert response.status_code == 200, response.text
        return [t["id"] for t in response.json()["data"]]

    assert ids() == [waiting["transactionId"], done["transactionId"]]  # newest first
    assert ids(status="COMPLETED") == [done["transactionId"]]
    assert ids(status="PENDING") == [waiting["transactionId"]]
    assert ids(type="OUTGOING") == ids()
    assert ids(type="CARD") == [] and ids(cardId="Card:x") == []
    assert ids(status="FAILED") == []
    for params in ({"status": "PENDING", "type": "CARD"}, {"status": "DONE"}, {"type": "X"}):
        response = client.get("/transactions", params=params)
        assert error_code(response, 400) == "INVALID_INPUT"
    other = second_client.get("/transactions", params={"customerId": holder.id}).json()
    assert other == {"data": [], "nextCursor": None}
    assert error_code(client.get("/transactions/Transaction:nope"), 404) == "NOT_FOUND"


@pytest.fixture
def short_lived(launch: Callable[..., RunningSandbox]) -> RunningSandbox:
    return launch("--quote-lifetime", "1")


def test_expiry(short_lived: RunningSandbox) -> None:
    with short_lived.client() as client:
        holder = funded(client, 50_000)
        destination = external(client, holder.id)["id"]
        first = quote(client, holder.account_id(), destination, amount=1_000)
        second = quote(client, holder.account_id(), destination, amount=1_000)
        assert parse(first["expiresAt"]) - parse(first["createdAt"]) == timedelta(seconds=1)
        wait_past(second["expiresAt"])
        response = client.post(f"/quotes/{first['id']}/execute")  # no read swept it first
        assert error_code(response, 400) == "QUOTE_EXPIRED"
        assert client.get(f"/quotes/{second['id']}").json()["status"] == "EXPIRED"
        assert client.get(f"/quotes/{first['id']}").json()["status"] == "EXPIRED"
        assert error_code(client.post(f"/quotes/{second['id']}/execute"), 400) == "QUOTE_EXPIRED"
        assert transaction(client, first["transactionId"])["status"] == "EXPIRED"
        expired = client.get("/transactions", params={"status": "EXPIRED"}).json()["data"]
        assert {t["id"] for t in expired} == {first["transactionId"], second["transactionId"]}
        assert available(client, holder.id) == 50_000
