"""Fault modes of the webhooks area (reference/webhooks/)."""

from __future__ import annotations

import json
import uuid
from datetime import datetime, timedelta
from typing import Any

from cryptography.hazmat.primitives.asymmetric import ec

from reference.faults.registry import fault
from reference.kernel.db import Database
from reference.webhooks import delivery, events
from reference.webhooks.outbox import OutboxRow

CUSTOMER_EVENT_PREFIX = "CUSTOMER."


@fault(
    "webhook-forged-signature",
    at=delivery.SIGNING_KEY,
    clause="§5 Authentication: webhook signature",
    part="webhooks",
    caught_by=("test_every_delivery_is_signed",),
)
def sign_with_an_unpublished_key(key: ec.EllipticCurvePrivateKey) -> ec.EllipticCurvePrivateKey:
    """deliveries are signed with a key other than the published one"""
    return ec.generate_private_key(ec.SECP256R1())


@fault(
    "webhook-tampered-body",
    at=delivery.WIRE_BODY,
    clause="§5 Authentication: webhook signature",
    part="webhooks",
    caught_by=("test_every_delivery_is_signed",),
)
def reserialise_the_body(body: bytes, *, row: OutboxRow) -> bytes:
    """the delivered body differs from the signed bytes"""
    # Same JSON value, different bytes: a verifier that re-serialises passes, one that
    # hashes the exact body fails.
    return json.dumps(json.loads(body)).encode("utf-8")


def _unsigned(headers: dict[str, str]) -> dict[str, str]:
    return {name: value for name, value in headers.items() if name != delivery.SIGNATURE_HEADER}


@fault(
    "webhook-unsigned",
    at=delivery.DELIVERY_HEADERS,
    clause="§5 Authentication: webhook signature",
    part="webhooks",
    caught_by=("test_every_delivery_is_signed",),
)
def leave_every_signature_off(headers: dict[str, str], *, row: OutboxRow) -> dict[str, str]:
    """deliveries carry no X-Service-Signature"""
    return _unsigned(headers)


@fault(
    "webhook-test-not-sent",
    at=events.TEST_EVENT_QUEUED,
    clause="§6 Events",
    part="webhooks",
    caught_by=("test_test_event_reaches_the_configured_endpoint",),
    # the preflight's proof of the sink waits for this very event: without it, the run
    # cannot tell a target that sends none from deliveries that cannot reach the sink
    stops_at_preflight=True,
)
def never_queue_the_test_event(queued: bool, *, platform_id: str, event: dict[str, Any]) -> bool:
    """POST /sandbox/webhooks/test answers 200 but delivers nothing"""
    return False


@fault(
    "events-never-delivered",
    at=events.EVENT_QUEUED,
    clause="§6 Events",
    part="webhooks",
    caught_by=("test_status_changes_emit_events_of_the_customers_family",),
)
def never_queue_an_event(queued: bool, *, platform_id: str, event_type: str) -> bool:
    """no event is ever delivered, except the TEST event of POST /sandbox/webhooks/test"""
    return False


@fault(
    "webhook-test-wrong-shape",
    at=events.TEST_EVENT,
    clause="§6 Events: test event",
    part="webhooks",
    caught_by=("test_test_event_has_the_documented_shape",),
)
def misshape_the_test_event(event: dict[str, Any]) -> dict[str, Any]:
    """the TEST event lacks webhookId and has test: false"""
    misshapen = {**event, "test": False}
    del misshapen["webhookId"]
    return misshapen


@fault(
    "kyc-event-unsigned",
    at=delivery.DELIVERY_HEADERS,
    clause="§5 Authentication: webhook signature",
    part="webhooks",
    caught_by=(
        "test_status_changes_emit_events_of_the_customers_family",
        "test_every_delivery_is_signed",
    ),
)
def leave_customer_signatures_off(headers: dict[str, str], *, row: OutboxRow) -> dict[str, str]:
    """CUSTOMER.* deliveries carry no X-Service-Signature; TEST events stay signed"""
    if row.event_type.startswith(CUSTOMER_EVENT_PREFIX):
        return _unsigned(headers)
    return headers


# The status a forged copy claims instead of the real one: the rival outcome, so that a
# copy counted as authentic would rule out the awaited event and break the state machine.
RIVAL_STATUS = {
    "PROCESSING": "FAILED",
    "COMPLETED": "FAILED",
    "FAILED": "COMPLETED",
    "KYC_PENDING": "KYC_REJECTED",
    "KYC_APPROVED": "KYC_REJECTED",
    "KYC_REJECTED": "KYC_APPROVED",
    "KYB_PENDING": "KYB_REJECTED",
    "KYB_APPROVED": "KYB_REJECTED",
    "KYB_REJECTED": "KYB_APPROVED",
    "REFUND_PENDING": "REFUND_FAILED",
    "REFUND_COMPLETED": "REFUND_FAILED",
    "REFUND_FAILED": "REFUND_COMPLETED",
}


def forged_copy(body: bytes) -> bytes:
    """The event with its envelope id kept and its content changed: the rival type and
    status, and a timestamp an hour earlier."""
    event = json.loads(body)
    family, _, status = str(event.get("type", "")).rpartition(".")
    rival = RIVAL_STATUS.get(status)
    if family and rival:
        event["type"] = f"{family}.{rival}"
    data = event.get("data")
    if isinstance(data, dict) and "status" in data:
        event["data"] = {**data, "status": (rival or "FAILED").rpartition("_")[2]}
    stamp = event.get("timestamp")
    if isinstance(stamp, str):
        earlier = datetime.fromisoformat(stamp.replace("Z", "+00:00")) - timedelta(hours=1)
        event["timestamp"] = earlier.isoformat().replace("+00:00", "Z")
    return json.dumps(event).encode("utf-8")


@fault(
    "webhook-forged-copy-first",
    at=delivery.POSTS,
    clause="§5 Authentication: webhook signature",
    part="webhooks",
    caught_by=("test_every_delivery_is_signed",),
)
def post_a_forged_copy_first(
    posts: list[tuple[dict[str, str], bytes]], *, row: OutboxRow
) -> list[tuple[dict[str, str], bytes]]:
    """each delivery is preceded by a forged copy: same envelope id, another type, status and
    timestamp, under the authentic delivery's signature (which does not verify over it)"""
    headers, body = posts[-1]
    return [(headers, forged_copy(body)), *posts]


@fault(
    "event-amount-off-by-one",
    at=events.EVENT_DATA,
    clause="§6 Events: data for payment events is the Transaction (part 2)",
    part="webhooks",
    caught_by=(
        "test_payment_events_are_envelopes_whose_data_is_the_transaction",
        "test_each_status_event_carries_the_transaction_in_that_status",
    ),
)
def complete_one_unit_off(data: dict[str, Any], *, event_type: str) -> dict[str, Any]:
    """OUTGOING_PAYMENT.COMPLETED carries a sentAmount one unit above the transaction's (GET
    /transactions states the right one)"""
    sent = data.get("sentAmount")
    if event_type != "OUTGOING_PAYMENT.COMPLETED" or not isinstance(sent, dict):
        return data
    return {**data, "sentAmount": {**sent, "amount": sent["amount"] + 1}}


# Events about records that are not the platform's (§5, §6): beside each CUSTOMER.* event,
# a correctly signed copy about another customer goes to the same endpoint.
def _about(envelope: dict[str, Any], customer_id: str) -> dict[str, Any]:
    data = envelope.get("data")
    copy = {**(data if isinstance(data, dict) else {}), "id": customer_id}
    return {**envelope, "id": events.new_webhook_id(), "data": copy}


@fault(
    "events-about-other-platforms-records",
    at=events.ENVELOPES,
    clause="§6 Events: data is the platform's own record (§5 isolation)",
    part="webhooks",
    caught_by=("test_events_are_about_this_platforms_records",),
)
def leak_another_platforms_customer(
    envelopes: list[dict[str, Any]], *, platform_id: str, db: Database
) -> list[dict[str, Any]]:
    """each CUSTOMER.* event is followed by a signed copy about another platform's newest
    customer"""
    first = envelopes[0]
    if not str(first.get("type", "")).startswith(CUSTOMER_EVENT_PREFIX):
        return envelopes
    row = db.fetchone(
        "SELECT id FROM customers WHERE platform_id != ? ORDER BY seq DESC LIMIT 1",
        (platform_id,),
    )
    return envelopes if row is None else [*envelopes, _about(first, str(row["id"]))]


@fault(
    "events-about-records-never-had",
    at=events.ENVELOPES,
    clause="§6 Events: data is the platform's own record",
    part="webhooks",
    caught_by=("test_events_are_about_this_platforms_records",),
)
def invent_a_customer(
    envelopes: list[dict[str, Any]], *, platform_id: str, db: Database
) -> list[dict[str, Any]]:
    """each CUSTOMER.* event is followed by a signed copy about a customer no platform has"""
    first = envelopes[0]
    if not str(first.get("type", "")).startswith(CUSTOMER_EVENT_PREFIX):
        return envelopes
    return [*envelopes, _about(first, f"Customer:{uuid.uuid4()}")]


@fault(
    "event-id-reused",
    at=events.ENVELOPES,
    clause="§6 Events: an event id names one event",
    part="webhooks",
    caught_by=("test_each_event_id_names_one_event",),
)
def one_id_for_every_event(
    envelopes: list[dict[str, Any]], *, platform_id: str, db: Database
) -> list[dict[str, Any]]:
    """every event of a platform but TEST carries one envelope id, whatever it is about"""
    reused = f"Webhook:{uuid.uuid5(uuid.NAMESPACE_URL, platform_id)}"
    return [{**envelope, "id": reused} for envelope in envelopes]
