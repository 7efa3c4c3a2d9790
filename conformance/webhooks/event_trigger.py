"""The TEST event: POST /sandbox/webhooks/test, and the wait for the delivery it sends
(§6 Events; the trigger is one of §9's sandbox endpoints)."""

from __future__ import annotations

import time
from typing import Any

from conformance.contract import clauses
from conformance.contract.failures import check
from conformance.contract.markers import skip_unless_sandbox
from conformance.webhooks.event_checks import fail_wait
from conformance.webhooks.sink import Awaited, SinkTimeout

__all__ = ["trigger_test_event"]

CLAUSE = clauses.EVENTS
# a TEST event that does not come is charged to the rule that the trigger sends one
AWAITED = Awaited(
    "a TEST event after POST /sandbox/webhooks/test", "WEBHOOK-TEST-TRIGGER", frozenset({"TEST"})
)


def trigger_test_event(
    client: Any, webhook_sink: Any, profile: Any, *, set_aside_too: bool = False
) -> Any:
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
            awaited=AWAITED,
        )
    except SinkTimeout as timeout:
        fail_wait(
            timeout,
            CLAUSE,
            "POST /sandbox/webhooks/test sends a TEST event to the configured webhookEndpoint",
            observed=f"nothing within {profile.webhook_timeout:g} s",
            hint=str(timeout),
        )
