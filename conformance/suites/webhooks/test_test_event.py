"""§6 Events — the signed TEST delivery triggered by POST /sandbox/webhooks/test (the
signature rule for every delivery of the run is in ``test_signatures.py``)."""

from __future__ import annotations

import pytest

from conformance.contract import clauses
from conformance.contract.failures import check
from conformance.webhooks.event_trigger import trigger_test_event

pytestmark = [pytest.mark.resource("Webhook")]

CLAUSE = clauses.EVENTS


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
