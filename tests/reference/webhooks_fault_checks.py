"""Checks for the fault modes of ``reference/faults/webhooks.py``: webhooks: signatures, the
test event, lost events; ``test_faults`` adds them to its ``CHECKS``."""

from __future__ import annotations

import base64

import pytest

from .customer_helpers import (
    complete_individual,
    submit,
)
from .customers_fault_checks import customer_events
from .money_helpers import execute, external, funded, payment_events, quote, transaction
from .reference_helpers import (
    Delivery,
    FaultChecks,
    RunningSandbox,
    WebhookReceiver,
    signature_valid,
    with_webhook_id,
)

WEBHOOKS_CHECKS = FaultChecks()
check = WEBHOOKS_CHECKS.add


def deliver_test_event(sandbox: RunningSandbox, receiver: WebhookReceiver):
    with sandbox.client() as client:
        client.patch("/config", json={"webhookEndpoint": receiver.url})
        response = client.post("/sandbox/webhooks/test")
    assert response.status_code == 200
    [delivery] = receiver.wait_for(bool)
    return response.json()["webhookId"], delivery


@check("kyc-event-unsigned")
def _(sandbox: RunningSandbox, receiver: WebhookReceiver) -> None:
    with sandbox.client() as client:
        client.patch("/config", json={"webhookEndpoint": receiver.url})
        customer = complete_individual(client, "Ann Lee 003")
        submit(client, customer["id"])
        events = customer_events(receiver, customer["id"], 2)
        assert all("X-Service-Signature" not in d.headers for d in events)
        webhook_id = client.post("/sandbox/webhooks/test").json()["webhookId"]
    [test_event] = [
        d for d in receiver.wait_for(with_webhook_id(webhook_id)) if d.json().get("test")
    ]
    assert signature_valid(
        sandbox.banner["webhook_public_key_pem"],
        test_event.body,
        test_event.headers["X-Service-Signature"],
    )


@check("webhook-forged-signature")
def _(sandbox: RunningSandbox, receiver: WebhookReceiver) -> None:
    _, delivery = deliver_test_event(sandbox, receiver)
    signature = delivery.headers["X-Service-Signature"]
    base64.b64decode(signature, validate=True)  # still a well-formed signature
    assert not signature_valid(sandbox.banner["webhook_public_key_pem"], delivery.body, signature)


@check("webhook-tampered-body")
def _(sandbox: RunningSandbox, receiver: WebhookReceiver) -> None:
    webhook_id, delivery = deliver_test_event(sandbox, receiver)
    assert delivery.json()["webhookId"] == webhook_id  # same JSON value, other bytes
    assert not signature_valid(
        sandbox.banner["webhook_public_key_pem"],
        delivery.body,
        delivery.headers["X-Service-Signature"],
    )


@check("webhook-unsigned")
def _(sandbox: RunningSandbox, receiver: WebhookReceiver) -> None:
    _, delivery = deliver_test_event(sandbox, receiver)
    assert "X-Service-Signature" not in delivery.headers


@check("webhook-test-not-sent")
def _(sandbox: RunningSandbox, receiver: WebhookReceiver) -> None:
    with sandbox.client() as client:
        client.patch("/config", json={"webhookEndpoint": receiver.url})
        assert client.post("/sandbox/webhooks/test").status_code == 200
    # Proving an absence needs a bounded wait; a healthy sandbox delivers in milliseconds.
    with pytest.raises(AssertionError, match="not met"):
        receiver.wait_for(bool, timeout=1.0)


@check("events-never-delivered")
def _(sandbox: RunningSandbox, receiver: WebhookReceiver) -> None:
    with sandbox.client() as client:
        client.patch("/config", json={"webhookEndpoint": receiver.url})
        customer = complete_individual(client, "Ann Lee 002")
        submit(client, customer["id"])
        webhook_id = client.post("/sandbox/webhooks/test").json()["webhookId"]
    # the TEST event, queued after the customer's events, still arrives; nothing else does
    deliveries = receiver.wait_for(with_webhook_id(webhook_id))
    assert [d.json().get("type") for d in deliveries] == ["TEST"]


@check("webhook-test-wrong-shape")
def _(sandbox: RunningSandbox, receiver: WebhookReceiver) -> None:
    webhook_id, delivery = deliver_test_event(sandbox, receiver)
    event = delivery.json()
    assert "webhookId" not in event and event["test"] is False
    assert not with_webhook_id(webhook_id)([delivery])


@check("webhook-forged-copy-first")
def _(sandbox: RunningSandbox, receiver: WebhookReceiver) -> None:
    with sandbox.client() as client:
        client.patch("/config", json={"webhookEndpoint": receiver.url})
        webhook_id = client.post("/sandbox/webhooks/test").json()["webhookId"]

    def mine(deliveries: list[Delivery]) -> list[Delivery]:
        return [d for d in deliveries if d.json().get("webhookId") == webhook_id]

    forged, authentic = mine(receiver.wait_for(lambda ds: len(mine(ds)) >= 2))
    key = sandbox.banner["webhook_public_key_pem"]
    signature = authentic.headers["X-Service-Signature"]
    assert forged.headers["X-Service-Signature"] == signature  # the authentic one's, copied
    assert forged.json()["timestamp"] < authentic.json()["timestamp"]
    assert not signature_valid(key, forged.body, signature)
    assert signature_valid(key, authentic.body, signature)


@check("event-amount-off-by-one")
def _(sandbox: RunningSandbox, receiver: WebhookReceiver) -> None:
    with sandbox.client() as client:
        client.patch("/config", json={"webhookEndpoint": receiver.url})
        holder = funded(client, 50_000)
        body = quote(client, holder.account_id(), external(client, holder.id)["id"])
        execute(client, body["id"])
        stored = transaction(client, body["transactionId"])
    events = {e["type"]: e["data"] for e in payment_events(receiver, stored["id"], 2)}
    sent = stored["sentAmount"]["amount"]
    assert events["OUTGOING_PAYMENT.PROCESSING"]["sentAmount"]["amount"] == sent
    assert events["OUTGOING_PAYMENT.COMPLETED"]["sentAmount"]["amount"] == sent + 1
    assert events["OUTGOING_PAYMENT.COMPLETED"]["receivedAmount"] == stored["receivedAmount"]


def two_platforms_customers(sandbox: RunningSandbox, receiver: WebhookReceiver) -> tuple[str, str]:
    """A customer of the second platform, then one of the primary submitted (its
    KYC_PENDING and decision events): the two customers' ids."""
    with sandbox.client("second") as second:
        other = complete_individual(second, "Bo Ode 001")
    with sandbox.client() as client:
        client.patch("/config", json={"webhookEndpoint": receiver.url})
        customer = complete_individual(client, "Ann Lee 002")
        submit(client, customer["id"])
    return other["id"], customer["id"]


def _ids(deliveries: list[Delivery]) -> list[tuple[str, str, str]]:
    return [(d.json()["id"], d.json()["type"], d.json()["data"]["id"]) for d in deliveries]


@check("events-about-other-platforms-records")
def _(sandbox: RunningSandbox, receiver: WebhookReceiver) -> None:
    other, own = two_platforms_customers(sandbox, receiver)
    deliveries = receiver.wait_for(lambda found: len(found) >= 4)
    records = [record for _, _, record in _ids(deliveries)]
    assert records.count(other) >= 2 and records.count(own) >= 2, records
    key = sandbox.banner["webhook_public_key_pem"]
    assert all(signature_valid(key, d.body, d.headers["X-Service-Signature"]) for d in deliveries)


@check("events-about-records-never-had")
def _(sandbox: RunningSandbox, receiver: WebhookReceiver) -> None:
    other, own = two_platforms_customers(sandbox, receiver)
    deliveries = receiver.wait_for(lambda found: len(found) >= 4)
    records = {record for _, _, record in _ids(deliveries)}
    assert own in records and other not in records
    assert len(records) >= 3, records  # each copy about a customer invented anew


@check("event-id-reused")
def _(sandbox: RunningSandbox, receiver: WebhookReceiver) -> None:
    two_platforms_customers(sandbox, receiver)
    deliveries = receiver.wait_for(lambda found: len(found) >= 2)
    ids = _ids(deliveries)
    assert len({event_id for event_id, _, _ in ids}) == 1, ids  # one id ...
    assert len({event_type for _, event_type, _ in ids}) >= 2, ids  # ... for different events
