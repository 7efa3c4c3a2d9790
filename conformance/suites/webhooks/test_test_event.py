"""§6 Events — the signed TEST delivery triggered by POST /sandbox/webhooks/test; and §5's
signature rule, for every delivery of the run."""

from __future__ import annotations

import time
from itertools import zip_longest

import pytest

from conformance.contract import clauses
from conformance.contract.failures import check
from conformance.contract.markers import skip_unless_sandbox
from conformance.webhooks.event_checks import SIGNATURE_CLAUSE, fail_wait, listing
from conformance.webhooks.sink import SinkTimeout

pytestmark = [pytest.mark.resource("Webhook")]

CLAUSE = clauses.EVENTS


def trigger_test_event(client, webhook_sink, profile, *, set_aside_too=False):
    """POST /sandbox/webhooks/test and wait for a TEST delivery that arrives after it
    (an authentic one, unless ``set_aside_too``)."""
    skip_unless_sandbox(profile, "POST /sandbox/webhooks/test")
    already = webhook_sink.mark()
    started = time.time()
    response = client.post("/sandbox/webhooks/test")
    check(
        200 <= response.status < 300,
        clauses.CARDS_AGENTS_SANDBOX_ENDPOINTS,
        "POST /sandbox/webhooks/test sends a TEST event to the configured endpoint",
        expected="2xx",
        observed=response.status,
        exchange=response.exchange,
    )
    try:
        return webhook_sink.wait_for(
            lambda d: d.event_type == "TEST" and d.received_at >= started - 1,
            timeout=profile.webhook_timeout,  # the interface gives no delivery time
            description="a TEST event after POST /sandbox/webhooks/test",
            after=already,
            set_aside_too=set_aside_too,
        )
    except SinkTimeout as timeout:
        fail_wait(
            timeout,
            CLAUSE,
            "POST /sandbox/webhooks/test sends a TEST event to the configured webhookEndpoint",
            observed=f"nothing within {profile.webhook_timeout:g} s",
            hint=str(timeout),
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
@pytest.mark.reads_the_run
def test_every_delivery_is_signed(client, webhook_sink, run_webhook_sinks, profile):
    """The one report of deliveries whose X-Service-Signature fails: the sink's view sets
    them aside (they satisfy no wait, and no other test sees them), and this test, run
    after the others, names every one the run received, its own TEST delivery included,
    at every sink of the run (under xdist with a sandbox per lane, each lane's)."""
    if webhook_sink.public_key is None:
        pytest.skip(
            "needs the webhook public key (--webhook-public-key / CONFORMANCE_WEBHOOK_PUBLIC_KEY)"
        )
    if profile.environment == "sandbox":
        trigger_test_event(client, webhook_sink, profile, set_aside_too=True)
    elif not any(sink.received() for sink in run_webhook_sinks):
        pytest.skip("no delivery arrived in this run to check (the TEST event is sandbox-only)")
    per_sink = [sink.set_aside() for sink in run_webhook_sinks]
    forged = [aside for asides in per_sink for aside in asides]
    received = sum(len(sink.received()) for sink in run_webhook_sinks)
    sinks = "" if len(per_sink) == 1 else f" at its {len(per_sink)} sinks"
    # taken in turn from each sink (sink 1 is this lane's), so the first ones shown cover all
    named = [
        [(f"sink {n}: " if sinks else "") + aside.summary() for aside in asides]
        for n, asides in enumerate(per_sink, 1)
    ]
    shown = [line for turn in zip_longest(*named) for line in turn if line is not None]
    check(
        not forged,
        SIGNATURE_CLAUSE,
        "each delivery carries X-Service-Signature: a base64 signature over the SHA-256 of the "
        "exact body that verifies with the service public key",
        observed=Plain(
            f"{len(forged)} of the {received} deliveries of this run{sinks}, whose signature "
            "does not verify (set aside: no other test counted them)"
        ),
        hint="set aside:\n"
        + listing(shown)
        + "\n  check that the profile's webhook public key is the target's "
        "(--webhook-public-key), that the signature covers the exact bytes sent, and that "
        "nothing else posts to the sink's URL",
    )


class Plain(str):
    """Shown as it is in a failure message (no quotes)."""

    def __repr__(self) -> str:
        return str(self)
