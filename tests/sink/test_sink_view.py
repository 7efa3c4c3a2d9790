"""The reader: long-poll waits with deadlines, timeouts that say what arrived, dedup, keys."""

from __future__ import annotations

import threading
import time

import httpx
import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec

from conformance.webhooks.sink import (
    Delivery,
    SinkRuledOut,
    SinkServer,
    SinkTimeout,
    SinkUnavailable,
    SinkView,
    check_order,
)

from .sink_helpers import envelope, sign_ec, transaction_id

SIGNED = "<signed with the view's key>"
_KEY: list[ec.EllipticCurvePrivateKey] = []


@pytest.fixture(autouse=True)
def _signing_key(ec_key: ec.EllipticCurvePrivateKey) -> None:
    """The key the view verifies with signs what these tests post, unless they say not."""
    _KEY[:] = [ec_key]


def _headers(body: bytes, signature: str | None) -> dict[str, str]:
    headers = {"Content-Type": "application/json"}
    if signature == SIGNED:
        signature = sign_ec(_KEY[0], body)
    if signature is not None:
        headers["X-Service-Signature"] = signature
    return headers


def _post(
    http: httpx.Client, sink: SinkServer, body: bytes, signature: str | None = SIGNED
) -> None:
    response = http.post(sink.url, content=body, headers=_headers(body, signature))
    assert response.status_code == 200


def _post_when_waited_on(sink: SinkServer, body: bytes, waiters: int = 1) -> threading.Thread:
    """Deliver ``body``, signed, once ``waiters`` long polls are waiting on the store (no
    sleeps)."""
    headers = _headers(body, SIGNED)

    def run() -> None:
        assert sink.store.wait_for_waiters(waiters, timeout=10)
        with httpx.Client(trust_env=False, timeout=10) as client:
            client.post(sink.url, content=body, headers=headers)

    thread = threading.Thread(target=run)
    thread.start()
    return thread


def test_deliveries_are_cached_incrementally(
    sink: SinkServer, view: SinkView, http: httpx.Client
) -> None:
    assert view.deliveries() == []
    _post(http, sink, envelope("TEST", event_id="Webhook:1"))
    _post(http, sink, envelope("TEST", event_id="Webhook:2"))
    assert [d.event_id for d in view.deliveries()] == ["Webhook:1", "Webhook:2"]
    _post(http, sink, envelope("TEST", event_id="Webhook:3"))
    assert [d.seq for d in view.deliveries()] == [1, 2, 3]
    assert view.health()["deliveries"] == 3


def test_wait_for_finds_a_delivery_that_arrived_before_the_call(
    sink: SinkServer, view: SinkView, http: httpx.Client
) -> None:
    txn = transaction_id()
    _post(http, sink, envelope("OUTGOING_PAYMENT.PROCESSING", txn))
    found = view.wait_for_event("OUTGOING_PAYMENT.PROCESSING", txn, timeout=5)
    assert found.resource_id == txn


def test_wait_for_returns_when_the_delivery_arrives(
    sink: SinkServer, view: SinkView, http: httpx.Client
) -> None:
    txn = transaction_id()
    _post(http, sink, envelope("TEST"))  # something that does not match
    sender = _post_when_waited_on(sink, envelope("OUTGOING_PAYMENT.COMPLETED", txn))
    started = time.monotonic()
    found = view.wait_for(
        lambda d: d.resource_id == txn, timeout=20, description="COMPLETED for the transaction"
    )
    elapsed = time.monotonic() - started
    sender.join(timeout=10)
    assert found.event_type == "OUTGOING_PAYMENT.COMPLETED"
    assert elapsed < 10


def test_a_timeout_names_the_wait_and_lists_what_arrived(
    sink: SinkServer, view: SinkView, http: httpx.Client
) -> None:
    txn = transaction_id()
    _post(http, sink, envelope("OUTGOING_PAYMENT.PROCESSING", txn, event_id="Webhook:p"))
    _post(http, sink, envelope("TEST", event_id="Webhook:t"))
    with pytest.raises(SinkTimeout) as info:
        view.wait_for_event("OUTGOING_PAYMENT.COMPLETED", txn, timeout=0.2)
    message = str(info.value)
    assert isinstance(info.value, AssertionError)
    assert f"waiting for OUTGOING_PAYMENT.COMPLETED event for {txn}" in message
    assert "0.2 s" in message
    assert f"#1 OUTGOING_PAYMENT.PROCESSING id=Webhook:p resource={txn}" in message
    assert "#2 TEST id=Webhook:t" in message
    assert len(info.value.arrived) == 2


def test_a_timeout_summary_shows_at_most_twenty(
    sink: SinkServer, view: SinkView, http: httpx.Client
) -> None:
    for n in range(25):
        _post(http, sink, envelope("TEST", event_id=f"Webhook:{n}"))
    with pytest.raises(SinkTimeout) as info:
        view.wait_for(lambda d: False, timeout=0, description="nothing")
    message = str(info.value)
    assert "the last 20 of 25" in message
    assert "#5 " not in message and "#6 TEST" in message and "#25 TEST" in message


def test_a_timeout_with_nothing_arrived_says_so(view: SinkView) -> None:
    with pytest.raises(SinkTimeout, match="no delivery arrived at all"):
        view.wait_for(lambda d: True, timeout=0.05, description="anything")


def test_two_views_in_separate_threads_both_see_deliveries(sink: SinkServer) -> None:
    txn = transaction_id()
    seen: dict[str, Delivery] = {}

    def read(name: str) -> None:
        with SinkView(sink.control_url) as reader:
            seen[name] = reader.wait_for_event("OUTGOING_PAYMENT.PROCESSING", txn, timeout=20)

    readers = [threading.Thread(target=read, args=(name,)) for name in ("a", "b")]
    for reader in readers:
        reader.start()
    _post_when_waited_on(sink, envelope("OUTGOING_PAYMENT.PROCESSING", txn), waiters=2).join(10)
    for reader in readers:
        reader.join(timeout=10)
    assert seen["a"].seq == seen["b"].seq == 1


def test_a_redelivered_envelope_counts_once(
    sink: SinkServer, view: SinkView, http: httpx.Client
) -> None:
    txn = transaction_id()
    processing = envelope("OUTGOING_PAYMENT.PROCESSING", txn, at=0, event_id="Webhook:one")
    _post(http, sink, processing)
    _post(http, sink, processing)  # the target retried
    _post(http, sink, envelope("OUTGOING_PAYMENT.COMPLETED", txn, at=1, event_id="Webhook:two"))
    assert [(d.seq, d.event_id) for d in view.events_for(txn)] == [
        (1, "Webhook:one"),
        (3, "Webhook:two"),
    ]
    matches = view.wait_for_all(
        lambda d: d.resource_id == txn, 2, timeout=5, description="both events"
    )
    assert [d.seq for d in matches] == [1, 3]
    with pytest.raises(SinkTimeout, match=r"wanted 3, got 2"):
        view.wait_for_all(lambda d: d.resource_id == txn, 3, timeout=0.05, description="three")


def test_after_a_mark_only_later_deliveries_count(
    sink: SinkServer, view: SinkView, http: httpx.Client
) -> None:
    _post(http, sink, envelope("TEST", event_id="Webhook:before"))
    mark = view.mark()
    _post(http, sink, envelope("TEST", event_id="Webhook:after"))
    found = view.wait_for(
        lambda d: d.event_type == "TEST", timeout=5, description="TEST", after=mark
    )
    assert found.event_id == "Webhook:after"


def test_signatures_are_checked_with_the_configured_key(
    sink: SinkServer,
    view: SinkView,
    http: httpx.Client,
    ec_key: ec.EllipticCurvePrivateKey,
    other_ec_key: ec.EllipticCurvePrivateKey,
) -> None:
    good = envelope("TEST", event_id="Webhook:good")
    _post(http, sink, good, sign_ec(ec_key, good))
    _post(http, sink, good, sign_ec(other_ec_key, good))
    _post(http, sink, good, signature=None)
    first, second, third = view.received()
    assert view.signature(first).valid
    assert not view.signature(second).valid
    assert view.signature(third).reason == "missing X-Service-Signature header"
    pem = ec_key.public_key().public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
    )
    with SinkView(sink.control_url, public_key=pem.decode()) as from_pem:
        assert from_pem.signature(first).valid
    with SinkView(sink.control_url) as keyless:
        check = keyless.signature(first)
    assert (check.valid, check.reason) == (False, "no webhook public key configured")


def test_an_unreachable_control_api_is_reported() -> None:
    with SinkServer() as gone:
        url = gone.control_url
    with SinkView(url, timeout_s=2) as reader, pytest.raises(SinkUnavailable, match=url):
        reader.deliveries()


def test_an_event_that_rules_out_the_awaited_one_ends_the_wait_at_once(
    sink: SinkServer, view: SinkView, http: httpx.Client
) -> None:
    txn = transaction_id()
    _post(http, sink, envelope("OUTGOING_PAYMENT.FAILED", txn, event_id="Webhook:f"))
    with pytest.raises(SinkRuledOut) as info:
        view.wait_for(
            lambda d: d.event_type == "OUTGOING_PAYMENT.COMPLETED",
            timeout=600,  # far longer than the test may take: the wait must not run out
            description="COMPLETED",
            rules_out=lambda d: d.event_type == "OUTGOING_PAYMENT.FAILED",
        )
    assert isinstance(info.value, SinkTimeout)
    assert "rules out COMPLETED" in str(info.value)


def test_a_deeply_nested_delivery_is_stored_and_read_without_error(
    sink: SinkServer, view: SinkView, http: httpx.Client
) -> None:
    _post(http, sink, b'{"type": ' + b"[" * 50_000 + b"]" * 50_000 + b"}")
    _post(http, sink, b"[1, 2]")
    _post(http, sink, b"\xff\xfe not utf-8")
    deliveries = view.deliveries()
    assert [(d.json, d.event_type, d.event_id, d.resource_id) for d in deliveries] == [
        (None, None, None, None),
        ([1, 2], None, None, None),
        (None, None, None, None),
    ]


# -- only authentic deliveries count ---------------------------------------------------------


def _forged_copy(txn: str, event_id: str, event_type: str, at: float) -> bytes:
    """Another event under an authentic delivery's id (its signature will not verify)."""
    return envelope(event_type, txn, at=at, event_id=event_id, data={"status": "FAILED"})


def test_a_forged_copy_arriving_first_does_not_hide_the_authentic_one(
    sink: SinkServer, view: SinkView, http: httpx.Client, other_ec_key: ec.EllipticCurvePrivateKey
) -> None:
    txn = transaction_id()
    processing = envelope("OUTGOING_PAYMENT.PROCESSING", txn, at=0, event_id="Webhook:p")
    completed = envelope("OUTGOING_PAYMENT.COMPLETED", txn, at=1, event_id="Webhook:c")
    # each forged copy first: same id, the rival status, earlier, under another key's signature
    forged = _forged_copy(txn, "Webhook:c", "OUTGOING_PAYMENT.FAILED", at=-5)
    _post(http, sink, processing)
    _post(http, sink, forged, sign_ec(other_ec_key, forged))
    _post(http, sink, completed)
    events = view.events_for(txn)
    assert [(d.seq, d.event_type) for d in events] == [
        (1, "OUTGOING_PAYMENT.PROCESSING"),
        (3, "OUTGOING_PAYMENT.COMPLETED"),
    ]
    assert check_order(events).ok  # the forged FAILED an hour earlier takes no part
    found = view.wait_for_event("OUTGOING_PAYMENT.COMPLETED", txn, timeout=5)
    assert found.seq == 3 and found.body == completed
    assert [d.seq for d in view.deliveries()] == [1, 3]
    assert [d.seq for d in view.received()] == [1, 2, 3]
    [aside] = view.set_aside()
    assert aside.delivery.seq == 2 and aside.delivery.event_id == "Webhook:c"
    assert "does not verify" in aside.check.reason
    assert "#2 OUTGOING_PAYMENT.FAILED id=Webhook:c" in aside.summary()


def test_a_forged_copy_with_the_same_id_and_the_same_type_is_set_aside_too(
    sink: SinkServer, view: SinkView, http: httpx.Client
) -> None:
    txn = transaction_id()
    authentic = envelope("OUTGOING_PAYMENT.COMPLETED", txn, at=1, event_id="Webhook:same")
    tampered = envelope(
        "OUTGOING_PAYMENT.COMPLETED", txn, at=1, event_id="Webhook:same", data={"status": "X"}
    )
    _post(http, sink, tampered, sign_ec(_KEY[0], authentic))  # a signature of other bytes
    _post(http, sink, authentic)
    matches = view.wait_for_all(lambda d: d.resource_id == txn, 1, timeout=5, description="it")
    assert [d.seq for d in matches] == [2]
    assert [d.seq for d in view.events_for(txn)] == [2]


def test_a_forged_event_neither_satisfies_nor_rules_out_a_wait(
    sink: SinkServer, view: SinkView, http: httpx.Client
) -> None:
    txn = transaction_id()
    forged = _forged_copy(txn, "Webhook:f", "OUTGOING_PAYMENT.FAILED", at=0)
    _post(http, sink, forged, signature=None)  # unsigned: unverifiable
    sender = _post_when_waited_on(sink, envelope("OUTGOING_PAYMENT.COMPLETED", txn, at=1))
    found = view.wait_for(
        lambda d: d.event_type == "OUTGOING_PAYMENT.COMPLETED" and d.resource_id == txn,
        timeout=20,
        description="COMPLETED",
        rules_out=lambda d: d.event_type == "OUTGOING_PAYMENT.FAILED",  # the forged one's
    )
    sender.join(timeout=10)
    assert found.seq == 2


def test_a_wait_that_only_forged_copies_answered_times_out_naming_them(
    sink: SinkServer, view: SinkView, http: httpx.Client, other_ec_key: ec.EllipticCurvePrivateKey
) -> None:
    txn = transaction_id()
    body = envelope("OUTGOING_PAYMENT.COMPLETED", txn, event_id="Webhook:only")
    _post(http, sink, body, sign_ec(other_ec_key, body))
    _post(http, sink, envelope("TEST", event_id="Webhook:t"))
    with pytest.raises(SinkTimeout) as info:
        view.wait_for_event("OUTGOING_PAYMENT.COMPLETED", txn, timeout=0.1)
    [aside] = info.value.matching_set_aside
    assert aside.delivery.seq == 1
    assert [d.seq for d in info.value.arrived] == [2]
    assert "1 matching deliveries were set aside" in str(info.value)
    assert "#1 OUTGOING_PAYMENT.COMPLETED id=Webhook:only" in str(info.value)
    # the one report reads them all, and a wait may ask for them explicitly
    assert [s.delivery.seq for s in view.set_aside()] == [1]
    found = view.wait_for(
        lambda d: d.resource_id == txn, timeout=5, description="any copy", set_aside_too=True
    )
    assert found.seq == 1


def test_a_signed_delivery_that_repeats_a_member_satisfies_no_wait(
    sink: SinkServer, view: SinkView, http: httpx.Client
) -> None:
    txn = transaction_id()
    repeated = (
        b'{"id": "Webhook:r", "type": "OUTGOING_PAYMENT.FAILED", "timestamp": '
        b'"2026-01-15T12:00:00Z", "data": {"id": "' + txn.encode() + b'", "status": "FAILED"}, '
        b'"type": "OUTGOING_PAYMENT.COMPLETED"}'
    )
    _post(http, sink, repeated)  # signed with the right key: authentic, but ambiguous
    with pytest.raises(SinkTimeout) as info:
        view.wait_for_event("OUTGOING_PAYMENT.COMPLETED", txn, timeout=0.1)
    assert "the member 'type' 2 times in the object at $" in str(info.value)
    assert view.events_for(txn) == []


def test_without_a_key_nothing_is_set_aside(sink: SinkServer, http: httpx.Client) -> None:
    txn = transaction_id()
    _post(http, sink, envelope("OUTGOING_PAYMENT.COMPLETED", txn), signature=None)
    with SinkView(sink.control_url) as keyless:
        assert [d.seq for d in keyless.deliveries()] == [1]
        assert keyless.set_aside() == []
        assert keyless.wait_for_event("OUTGOING_PAYMENT.COMPLETED", txn, timeout=5).seq == 1
