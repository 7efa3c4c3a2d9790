"""§6 Events — the signed TEST delivery triggered by POST /sandbox/webhooks/test."""

from __future__ import annotations

import time

import pytest

from conformance.contract.failures import check, fail
from conformance.run.markers import skip_unless_sandbox
from conformance.webhooks.sink import SinkTimeout

pytestmark = [pytest.mark.resource("Webhook")]

CLAUSE = "§6 Events"
SIGNATURE_CLAUSE = "§5 Authentication — webhook signature"


def trigger_test_event(client, webhook_sink, profile):
    """POST /sandbox/webhooks/test and wait for a TEST delivery that arrives after it."""
    skip_unless_sandbox(profile, "POST /sandbox/webhooks/test")
    already = {d.seq for d in webhook_sink.deliveries()}
    started = time.time()
    response = client.post("/sandbox/webhooks/test")
    check(
        200 <= response.status < 300,
        "§4 Cards, stablecoins, agents, auth, sandbox",
        "POST /sandbox/webhooks/test sends a TEST event to the configured endpoint",
        expected="2xx",
        observed=response.status,
        exchange=response.exchange,
    )
    try:
        return webhook_sink.wait_for(
            lambda d: (
                d.seq not in already and d.event_type == "TEST" and d.received_at >= started - 1
            ),
            timeout=profile.webhook_timeout,  # the interface gives no delivery time
            description="a TEST event after POST /sandbox/webhooks/test",
        )
    except SinkTimeout as exc:
        fail(
            CLAUSE,
            "POST /sandbox/webhooks/test sends a TEST event to the configured webhookEndpoint",
            observed=f"nothing within {profile.webhook_timeout:g} s",
            hint=str(exc),
        )


@pytest.mark.requirement("WEBHOOK-TEST-TRIGGER", "WEBHOOK-ENDPOINT-CONFIG")
def test_test_event_reaches_the_configured_endpoint(client, webhook_sink, profile):
    delivery = trigger_test_event(client, webhook_sink, profile)
    check(delivery.method == "POST", CLAUSE, "events are POSTed to the endpoint",
          observed=delivery.method)  # fmt: skip


@pytest.mark.requirement("WEBHOOK-TEST-EVENT")
def test_test_event_has_the_documented_shape(client, webhook_sink, profile, schema_registry):
    delivery = trigger_test_event(client, webhook_sink, profile)
    event = delivery.json
    check(event is not None, CLAUSE, "the TEST delivery body is JSON", observed=delivery.body[:200])
    problems = schema_registry.violations("webhooks/test-event", event)
    check(
        not problems,
        CLAUSE,
        "the test event is {test: true, timestamp, webhookId, type: 'TEST'}",
        observed=[f"{p.path}: {p.message}" for p in problems],
    )


@pytest.mark.requirement("WEBHOOK-SIGNATURE")
def test_test_event_is_signed(client, webhook_sink, profile):
    if profile.webhook_public_key is None:
        pytest.skip(
            "needs the webhook public key (--webhook-public-key / CONFORMANCE_WEBHOOK_PUBLIC_KEY)"
        )
    delivery = trigger_test_event(client, webhook_sink, profile)
    result = webhook_sink.signature(delivery)
    header = delivery.headers.get("x-service-signature", "<absent>")[:60]
    check(
        result.valid,
        SIGNATURE_CLAUSE,
        "each delivery carries X-Service-Signature: a base64 signature over the SHA-256 of the "
        "exact body that verifies with the service public key",
        observed=f"{result.reason} (header {header!r})",
    )
