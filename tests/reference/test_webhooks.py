"""``POST /sandbox/webhooks/test`` and signed delivery from the outbox (§5, §6)."""

from __future__ import annotations

import re

import httpx

from .reference_helpers import RunningSandbox, WebhookReceiver, signature_valid, with_webhook_id

WEBHOOK_ID = re.compile(r"Webhook:[0-9a-f-]{36}")


def test_test_event_is_delivered_and_signed(
    sandbox: RunningSandbox, client: httpx.Client, receiver: WebhookReceiver
) -> None:
    client.patch("/config", json={"webhookEndpoint": receiver.url})
    response = client.post("/sandbox/webhooks/test")
    assert response.status_code == 200, response.text
    webhook_id = response.json()["webhookId"]
    assert WEBHOOK_ID.fullmatch(webhook_id)
    assert response.json()["webhookEndpoint"] == receiver.url

    [delivery] = receiver.wait_for(with_webhook_id(webhook_id))
    event = delivery.json()
    assert event["test"] is True
    assert event["type"] == "TEST"
    assert event["webhookId"] == webhook_id
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z", event["timestamp"])
    assert delivery.path == "/hooks"
    assert delivery.headers["Content-Type"] == "application/json"
    assert signature_valid(
        sandbox.banner["webhook_public_key_pem"],
        delivery.body,
        delivery.headers.get("X-Service-Signature"),
    )


def test_without_endpoint_the_test_event_is_409(client: httpx.Client) -> None:
    client.patch("/config", json={"webhookEndpoint": None})
    response = client.post("/sandbox/webhooks/test")
    assert response.status_code == 409
    assert response.json()["code"] == "WEBHOOK_ENDPOINT_NOT_CONFIGURED"


def test_failed_delivery_is_retried_until_2xx(launch, receiver: WebhookReceiver) -> None:
    sandbox = launch("--webhook-retry-scale", "0.001")  # retries after 5 ms, then 0.3 s
    receiver.answer_next(500, 503)
    with sandbox.client() as client:
        client.patch("/config", json={"webhookEndpoint": receiver.url})
        webhook_id = client.post("/sandbox/webhooks/test").json()["webhookId"]

    deliveries = receiver.wait_for(lambda ds: any(d.answered == 200 for d in ds))
    assert [d.answered for d in deliveries] == [500, 503, 200]
    assert len({d.body for d in deliveries}) == 1, "a retry sends the same bytes"
    assert deliveries[0].json()["webhookId"] == webhook_id
    assert all(
        signature_valid(
            sandbox.banner["webhook_public_key_pem"], d.body, d.headers["X-Service-Signature"]
        )
        for d in deliveries
    )
    assert deliveries[1].at > deliveries[0].at and deliveries[2].at > deliveries[1].at


def test_each_platform_gets_its_own_events(
    client: httpx.Client, second_client: httpx.Client, receiver: WebhookReceiver
) -> None:
    other = WebhookReceiver()
    try:
        client.patch("/config", json={"webhookEndpoint": receiver.url})
        second_client.patch("/config", json={"webhookEndpoint": other.url})
        first_id = client.post("/sandbox/webhooks/test").json()["webhookId"]
        second_id = second_client.post("/sandbox/webhooks/test").json()["webhookId"]
        other.wait_for(with_webhook_id(second_id))
        receiver.wait_for(with_webhook_id(first_id))
        assert not with_webhook_id(second_id)(receiver.deliveries)
        assert not with_webhook_id(first_id)(other.deliveries)
    finally:
        other.close()
