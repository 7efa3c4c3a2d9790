"""§6 Events, from the platform's side: "answer with a 2xx status on success" and "process
events idempotently", for signed deliveries of the TEST event, of every event type the
interface names, of one event twice, and of events out of timestamp order (delivery
ordering: not shown)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from conformance.webhooks.delivering.deliveries import signed
from conformance.webhooks.delivering.event_bodies import (
    EVENT_TYPES,
    event_of_type,
    follow_up,
    make_test_event,
)

pytestmark = [pytest.mark.resource("Webhook receiver")]


@pytest.mark.requirement("RECEIVER-2XX")
def test_the_test_event_is_acknowledged(receiver):
    receiver.acknowledges(signed(make_test_event(), receiver.key), "the TEST event")


@pytest.mark.requirement("RECEIVER-2XX")
@pytest.mark.parametrize("event_type", EVENT_TYPES, ids=[t.name for t in EVENT_TYPES])
def test_an_event_of_each_named_type_is_acknowledged(receiver, advisory, event_type):
    delivery = signed(event_of_type(event_type.name), receiver.key)
    if event_type.payload_shown:
        receiver.acknowledges(delivery, f"a {event_type.name} event")
    else:  # §6: "payload shapes of events other than transaction and test events: not shown"
        receiver.notes_a_refusal(delivery, f"a {event_type.name} event", advisory)


@pytest.mark.requirement("RECEIVER-IDEMPOTENT")
def test_the_same_event_delivered_twice_is_acknowledged_both_times(receiver):
    delivery = signed(event_of_type("OUTGOING_PAYMENT.COMPLETED"), receiver.key)
    receiver.acknowledges(delivery, "the first delivery of an OUTGOING_PAYMENT.COMPLETED event")
    receiver.acknowledges(
        delivery, f"the second delivery of the same event {delivery.event_id} (same bytes)"
    )


@pytest.mark.requirement("RECEIVER-ANY-ORDER")
@pytest.mark.parametrize(
    ("earlier", "later", "changes"),
    [
        ("OUTGOING_PAYMENT.PROCESSING", "OUTGOING_PAYMENT.COMPLETED", {"status": "COMPLETED"}),
        (
            "OUTGOING_PAYMENT.REFUND_PENDING",
            "OUTGOING_PAYMENT.REFUND_COMPLETED",
            {"refund": {"status": "COMPLETED"}},
        ),
    ],
    ids=["payment", "refund"],
)
def test_events_arriving_out_of_timestamp_order_are_acknowledged(receiver, earlier, later, changes):
    now = datetime.now(UTC)
    first = event_of_type(earlier, now - timedelta(seconds=30))
    second = follow_up(first, later, now, **changes)
    receiver.acknowledges(
        signed(second, receiver.key), f"{later}, stamped 30 s after {earlier}, delivered first"
    )
    receiver.acknowledges(
        signed(first, receiver.key), f"{earlier} about the same record, delivered after {later}"
    )
