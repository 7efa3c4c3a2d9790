"""``CUSTOMER.KYC_*`` / ``CUSTOMER.KYB_*`` events: delivered signed to the configured
endpoint, ``_PENDING`` strictly before the decision, none without an endpoint."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any

import httpx

from .customer_helpers import (
    complete_business,
    complete_individual,
    created,
    individual,
    submit,
    upload,
)
from .reference_helpers import (
    Delivery,
    RunningSandbox,
    WebhookReceiver,
    signature_valid,
    with_webhook_id,
)


def events_for(customer_id: str, count: int) -> Callable[[list[Delivery]], bool]:
    def predicate(deliveries: list[Delivery]) -> bool:
        return len(of(deliveries, customer_id)) >= count

    return predicate


def of(deliveries: list[Delivery], customer_id: str) -> list[dict[str, Any]]:
    return [
        d.json()
        for d in deliveries
        if d.json().get("type", "").startswith("CUSTOMER.")
        and d.json()["data"]["id"] == customer_id
    ]


def moment(event: dict[str, Any]) -> datetime:
    return datetime.fromisoformat(event["timestamp"].replace("Z", "+00:00"))


def test_decision_follows_pending_signed(
    sandbox: RunningSandbox, client: httpx.Client, receiver: WebhookReceiver
) -> None:
    client.patch("/config", json={"webhookEndpoint": receiver.url})
    customer = complete_individual(client, "Ann Lee 002")
    submit(client, customer["id"])
    deliveries = receiver.wait_for(events_for(customer["id"], 2))
    pending, rejected = sorted(of(deliveries, customer["id"]), key=moment)
    assert pending["type"] == "CUSTOMER.KYC_PENDING" and rejected["type"] == "CUSTOMER.KYC_REJECTED"
    assert moment(pending) < moment(rejected)
    assert pending["data"]["kycStatus"] == "PENDING"
    assert rejected["data"]["kycStatus"] == "REJECTED"
    assert rejected["data"] == client.get(f"/customers/{customer['id']}").json()
    key = sandbox.banner["webhook_public_key_pem"]
    for delivery in deliveries:
        assert signature_valid(key, delivery.body, delivery.headers.get("X-Service-Signature"))
        assert delivery.json()["id"].startswith("Webhook:")


def test_business_events(client: httpx.Client, receiver: WebhookReceiver) -> None:
    client.patch("/config", json={"webhookEndpoint": receiver.url})
    review, _ = complete_business(client, "RC-6001")
    approved, _ = complete_business(client, "RC-6003")
    submit(client, review["id"])
    submit(client, approved["id"])
    deliveries = receiver.wait_for(events_for(approved["id"], 2))
    deliveries = receiver.wait_for(events_for(review["id"], 1))
    assert [e["type"] for e in of(deliveries, review["id"])] == ["CUSTOMER.KYB_PENDING"]
    ordered = sorted(of(deliveries, approved["id"]), key=moment)
    assert [e["type"] for e in ordered] == ["CUSTOMER.KYB_PENDING", "CUSTOMER.KYB_APPROVED"]
    assert moment(ordered[0]) < moment(ordered[1])


def test_resolution_at_creation_is_announced(
    regulated_client: httpx.Client, receiver: WebhookReceiver
) -> None:
    regulated_client.patch("/config", json={"webhookEndpoint": receiver.url})
    pending = created(regulated_client.post("/customers", json=individual("Ann Lee 003")))
    rejected = created(regulated_client.post("/customers", json=individual("Ann Lee 002")))
    deliveries = receiver.wait_for(events_for(rejected["id"], 2))
    deliveries = receiver.wait_for(events_for(pending["id"], 1))
    assert [e["type"] for e in of(deliveries, pending["id"])] == ["CUSTOMER.KYC_PENDING"]
    ordered = sorted(of(deliveries, rejected["id"]), key=moment)
    assert [e["type"] for e in ordered] == ["CUSTOMER.KYC_PENDING", "CUSTOMER.KYC_REJECTED"]
    # a later decision on the PENDING customer is the decision alone
    created(upload(regulated_client, pending["id"]))
    submit(regulated_client, pending["id"])
    deliveries = receiver.wait_for(events_for(pending["id"], 2))
    assert [e["type"] for e in of(deliveries, pending["id"])][-1] == "CUSTOMER.KYC_APPROVED"


def test_no_events_without_an_endpoint(client: httpx.Client, receiver: WebhookReceiver) -> None:
    client.patch("/config", json={"webhookEndpoint": None})
    customer = complete_individual(client, "Ann Lee 003")
    submit(client, customer["id"])
    client.patch("/config", json={"webhookEndpoint": receiver.url})
    webhook_id = client.post("/sandbox/webhooks/test").json()["webhookId"]
    # one endpoint's deliveries go in outbox order: anything queued earlier would be first
    deliveries = receiver.wait_for(with_webhook_id(webhook_id))
    assert of(deliveries, customer["id"]) == []
