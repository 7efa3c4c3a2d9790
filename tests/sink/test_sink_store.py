"""Delivery records and the thread-safe append-only store."""

from __future__ import annotations

import json
import threading
from datetime import UTC, datetime

from conformance.webhooks.sink import Delivery, DeliveryStore, dedupe_by_event_id

from .sink_helpers import delivery, envelope

TXN = "Transaction:3f1f6a0e-8a59-4a3b-9c0e-0d8e3c7b2a11"


def test_envelope_properties_read_the_event() -> None:
    body = envelope("OUTGOING_PAYMENT.PROCESSING", TXN, at=5, event_id="Webhook:abc")
    item = delivery(1, body, x_service_signature="c2ln")
    assert item.json["type"] == "OUTGOING_PAYMENT.PROCESSING"
    assert item.event_id == "Webhook:abc"
    assert item.event_type == "OUTGOING_PAYMENT.PROCESSING"
    assert item.resource_id == TXN
    assert item.timestamp == datetime(2026, 1, 15, 12, 0, 5, tzinfo=UTC)
    assert item.signature_header == "c2ln"


def test_the_test_event_is_identified_by_its_webhook_id() -> None:
    body = {"test": True, "timestamp": "2026-01-15T12:00:00", "webhookId": "Webhook:t1"}
    item = delivery(1, json.dumps({**body, "type": "TEST"}).encode())
    assert (item.event_id, item.event_type, item.resource_id) == ("Webhook:t1", "TEST", None)
    assert item.timestamp == datetime(2026, 1, 15, 12, 0, tzinfo=UTC)  # naive read as UTC


def test_a_body_that_is_not_json_has_no_event_fields() -> None:
    item = delivery(7, b"\xff\xfe not json")
    assert (item.json, item.event_id, item.event_type, item.timestamp, item.resource_id) == (
        None,
        None,
        None,
        None,
        None,
    )
    assert "unreadable: invalid UTF-8 at byte 0" in item.summary()


def test_a_body_that_repeats_a_member_is_read_as_nothing_and_says_why() -> None:
    # a forged "type" first, the real one last: a last-wins reader would see the real event
    body = (
        b'{"id": "Webhook:d", "type": "OUTGOING_PAYMENT.FAILED", "timestamp": '
        b'"2026-01-15T12:00:00Z", "data": {"id": "Transaction:1", "status": "FAILED"}, '
        b'"type": "OUTGOING_PAYMENT.COMPLETED"}'
    )
    item = delivery(8, body)
    assert (item.json, item.event_id, item.event_type, item.resource_id) == (None,) * 4
    assert item.json_problem == "the member 'type' 2 times in the object at $"
    assert "unreadable: the member 'type' 2 times in the object at $" in item.summary()


def test_deliveries_survive_the_json_round_trip_byte_for_byte() -> None:
    item = delivery(3, b"\x00\x01 {raw} \xff", x_service_signature="abc", x_other="1")
    assert Delivery.from_json_dict(json.loads(json.dumps(item.to_json_dict()))) == item


def test_the_store_numbers_deliveries_and_lowercases_headers() -> None:
    store = DeliveryStore()
    first = store.add("POST", "/hooks", [("X-A", "1"), ("x-a", "2"), ("Content-Type", "j")], b"1")
    second = store.add("POST", "/hooks/x", {"X-B": "3"}, b"2")
    assert (first.seq, second.seq) == (1, 2)
    assert first.headers == {"x-a": "1, 2", "content-type": "j"}
    assert store.since(0) == [first, second]
    assert store.since(1) == [second]
    assert store.since(2) == []
    assert store.last_seq == len(store) == 2


def test_wait_after_returns_at_once_when_something_newer_exists() -> None:
    store = DeliveryStore()
    store.add("POST", "/hooks", {}, b"x")
    assert [d.seq for d in store.wait_after(0, timeout=30)] == [1]


def test_wait_after_gives_up_empty_at_the_deadline() -> None:
    assert DeliveryStore().wait_after(0, timeout=0.05) == []


def test_wait_after_wakes_when_a_delivery_is_added() -> None:
    store = DeliveryStore()
    results: list[list[Delivery]] = []
    waiter = threading.Thread(target=lambda: results.append(store.wait_after(0, timeout=30)))
    waiter.start()
    assert store.wait_for_waiters(1, timeout=5)
    store.add("POST", "/hooks", {}, b"x")
    waiter.join(timeout=5)
    assert not waiter.is_alive()
    assert [d.body for d in results[0]] == [b"x"]


def test_close_wakes_waiters() -> None:
    store = DeliveryStore()
    waiter = threading.Thread(target=store.wait_after, args=(0, 30))
    waiter.start()
    assert store.wait_for_waiters(1, timeout=5)
    store.close()
    waiter.join(timeout=5)
    assert not waiter.is_alive()


def test_dedupe_keeps_the_first_arrival_of_each_event_id() -> None:
    body = envelope("OUTGOING_PAYMENT.PROCESSING", TXN, event_id="Webhook:same")
    other = envelope("OUTGOING_PAYMENT.COMPLETED", TXN, event_id="Webhook:other")
    items = [delivery(2, body), delivery(1, body), delivery(3, other), delivery(4, b"no id")]
    assert [d.seq for d in dedupe_by_event_id(items)] == [1, 3, 4]
