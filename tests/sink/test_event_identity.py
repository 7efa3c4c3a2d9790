"""An envelope id names one event (``webhooks/event_records.py``, ``sink/store.py``): a
redelivery passes however often it comes, whatever its headers, signature or timestamp;
the same id on another event is named, and both events stay readable."""

from __future__ import annotations

from conformance.webhooks.event_records import reused_ids
from conformance.webhooks.sink import dedupe_by_event_id

from .sink_helpers import delivery, envelope

TXN = "Transaction:00000000-0000-4000-8000-000000000001"
OTHER = "Transaction:00000000-0000-4000-8000-000000000002"


def test_a_redelivery_passes_however_often_it_comes():
    # each attempt signed anew, restating the event (another timestamp, serialised apart)
    attempts = [
        delivery(n, envelope("OUTGOING_PAYMENT.COMPLETED", TXN, at=n, event_id="Webhook:a"),
                 x_service_signature=f"sig-{n}", x_attempt=str(n))
        for n in range(1, 8)
    ]  # fmt: skip
    assert reused_ids(attempts) == []
    assert [d.seq for d in dedupe_by_event_id(attempts)] == [1]


def test_one_id_on_another_type_or_record_is_named_and_both_are_kept():
    first = delivery(1, envelope("OUTGOING_PAYMENT.PROCESSING", TXN, event_id="Webhook:a"))
    again = delivery(2, envelope("OUTGOING_PAYMENT.PROCESSING", TXN, event_id="Webhook:a"))
    other_type = delivery(3, envelope("OUTGOING_PAYMENT.COMPLETED", TXN, event_id="Webhook:a"))
    other_record = delivery(4, envelope("OUTGOING_PAYMENT.PROCESSING", OTHER, event_id="Webhook:a"))
    found = reused_ids([other_record, first, again, other_type])
    assert [(a.seq, b.seq) for a, b in found] == [(1, 3), (1, 4)]
    kept = dedupe_by_event_id([first, again, other_type, other_record])
    assert [d.seq for d in kept] == [1, 3, 4]
