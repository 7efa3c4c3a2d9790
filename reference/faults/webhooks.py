"""Fault modes of the webhooks area (reference/webhooks/)."""

from __future__ import annotations

from reference.faults.legacy import legacy

legacy(
    "webhook-forged-signature",
    breaks="deliveries are signed with a key other than the published one",
    clause="§5 Authentication: webhook signature",
    part="webhooks",
    caught_by=("test_test_event_is_signed",),
)
legacy(
    "webhook-tampered-body",
    breaks="the delivered body differs from the signed bytes",
    clause="§5 Authentication: webhook signature",
    part="webhooks",
    caught_by=("test_test_event_is_signed",),
)
legacy(
    "webhook-unsigned",
    breaks="deliveries carry no X-Service-Signature",
    clause="§5 Authentication: webhook signature",
    part="webhooks",
    caught_by=("test_test_event_is_signed",),
)
legacy(
    "webhook-test-not-sent",
    breaks="POST /sandbox/webhooks/test answers 200 but delivers nothing",
    clause="§6 Events",
    part="webhooks",
    caught_by=("test_test_event_reaches_the_configured_endpoint",),
)
legacy(
    "webhook-test-wrong-shape",
    breaks="the TEST event lacks webhookId and has test: false",
    clause="§6 Events: test event",
    part="webhooks",
    caught_by=("test_test_event_has_the_documented_shape",),
)
legacy(
    "kyc-event-unsigned",
    breaks="CUSTOMER.* deliveries carry no X-Service-Signature; TEST events stay signed",
    clause="§5 Authentication: webhook signature",
    part="webhooks",
    caught_by=("test_customer_events_are_signed",),
)
