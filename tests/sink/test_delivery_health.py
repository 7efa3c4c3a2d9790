"""Webhook waits that time out with nothing delivered stop the run, unless a TEST event proves
that deliveries reach the sink (``conformance.webhooks.delivery_health``), against a real
sink on loopback."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator

import httpx
import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec

from conformance.contract.failures import ConformanceFailure
from conformance.exchange.target_health import TargetHealth
from conformance.run.webhook_sink import TestEventProbe
from conformance.webhooks.delivery_health import (
    DeliveryHealth,
    WaitNotMade,
    WatchedSinkView,
)
from conformance.webhooks.event_checks import fail_wait
from conformance.webhooks.sink import Awaited, Delivery, SinkServer, SinkTimeout

from .sink_helpers import delivery, envelope, sign_ec

WAIT_S = 0.5  # the shortest wait that counts
REMEDIES = "Check the tunnel."


@pytest.fixture
def watched(
    sink: SinkServer, ec_key: ec.EllipticCurvePrivateKey
) -> Iterator[Callable[..., WatchedSinkView]]:
    views: list[WatchedSinkView] = []

    def make(probe: Callable[[], str | None] | None = None) -> WatchedSinkView:
        view = WatchedSinkView(
            sink.control_url,
            public_key=ec_key.public_key(),
            sink_url=sink.url,
            remedies=REMEDIES,
            probe=probe,
            streaks=DeliveryHealth(),
            health=TargetHealth(),  # the session's, in a run
        )
        views.append(view)
        return view

    yield make
    for view in views:
        view.close()


def time_out(view: WatchedSinkView, what: str, timeout: float = WAIT_S) -> None:
    with pytest.raises(SinkTimeout):
        view.wait_for_event(what, timeout=timeout)


def post(http: httpx.Client, sink: SinkServer, body: bytes, signature: str) -> None:
    headers = {"X-Service-Signature": signature}
    assert http.post(sink.url, content=body, headers=headers).status_code == 200


def test_three_waits_with_nothing_delivered_stop_the_run_naming_each(watched, sink):
    view = watched(probe=None)  # production: no TEST event can be asked for
    for event in ("CUSTOMER.KYC_APPROVED", "OUTGOING_PAYMENT.COMPLETED"):
        time_out(view, event)
    assert view.target_health.down is None
    time_out(view, "CUSTOMER.KYB_APPROVED")
    reason = view.target_health.down
    assert reason is not None and reason.startswith("webhooks do not arrive: 3 webhook waits")
    for event in ("CUSTOMER.KYC_APPROVED", "OUTGOING_PAYMENT.COMPLETED", "CUSTOMER.KYB_APPROVED"):
        assert event in reason
    assert "test_three_waits_with_nothing_delivered" in reason  # the test that waited
    assert sink.url in reason and REMEDIES in reason and "production" in reason
    # once the run is stopping, a wait is not made (it would cost its whole timeout)
    with pytest.raises(WaitNotMade, match="not awaited"):
        view.wait_for_event("TEST", timeout=60)
    assert view.target_health.unreachable is None  # the target still answers: requests go on


def test_a_test_event_that_arrives_keeps_the_run_going(watched):
    probes: list[str] = []

    def probe() -> str | None:
        probes.append("asked")
        return None  # a TEST event arrived: the waits were the target's own failures

    view = watched(probe=probe)
    for _ in range(3):
        time_out(view, "CUSTOMER.KYC_APPROVED")
    assert probes == ["asked"] and view.target_health.down is None
    for _ in range(3):  # the streak starts again
        time_out(view, "CUSTOMER.KYC_APPROVED")
    assert probes == ["asked", "asked"] and view.target_health.down is None


def test_a_test_event_that_does_not_arrive_stops_the_run(watched):
    view = watched(probe=lambda: "POST /sandbox/webhooks/test answered 404")
    for _ in range(3):
        time_out(view, "CUSTOMER.KYC_APPROVED")
    assert view.target_health.down is not None
    assert "Asked for a TEST event then: POST /sandbox/webhooks/test answered 404" in (
        view.target_health.down
    )


def test_an_authentic_delivery_between_waits_ends_the_streak(watched, sink, http, ec_key):
    view = watched(probe=None)
    time_out(view, "CUSTOMER.KYC_APPROVED")
    time_out(view, "CUSTOMER.KYC_APPROVED")
    body = envelope("OUTGOING_PAYMENT.COMPLETED", "Transaction:1")
    post(http, sink, body, sign_ec(ec_key, body))  # the target does deliver, between waits
    time_out(view, "CUSTOMER.KYC_APPROVED")
    time_out(view, "CUSTOMER.KYC_APPROVED")
    assert view.target_health.down is None
    time_out(view, "CUSTOMER.KYC_APPROVED")
    assert view.target_health.down is not None


def test_forged_deliveries_do_not_end_the_streak_and_are_named(watched, sink, http, other_ec_key):
    view = watched(probe=None)
    time_out(view, "CUSTOMER.KYC_APPROVED")
    for index in range(2):
        body = envelope("CUSTOMER.KYC_PENDING", f"Customer:{index}")
        post(http, sink, body, sign_ec(other_ec_key, body))  # a key other than the profile's
    time_out(view, "CUSTOMER.KYC_APPROVED")
    time_out(view, "CUSTOMER.KYC_APPROVED")
    assert view.target_health.down is not None
    assert "2 deliveries did arrive whose X-Service-Signature does not verify" in (
        view.target_health.down
    )
    # deliveries do reach the sink: the remedy is the key, not a tunnel
    assert "check that it is the target's key" in view.target_health.down
    assert "--sink-public-url" not in view.target_health.down


def test_a_satisfied_wait_ends_the_streak(watched, sink, http, ec_key):
    view = watched(probe=None)
    time_out(view, "CUSTOMER.KYC_APPROVED")
    time_out(view, "CUSTOMER.KYC_APPROVED")
    body = envelope("CUSTOMER.KYC_APPROVED", "Customer:1")
    post(http, sink, body, sign_ec(ec_key, body))
    view.wait_for_event("CUSTOMER.KYC_APPROVED", timeout=5)
    mark = view.mark()
    time_out(view, "CUSTOMER.KYB_APPROVED")
    with pytest.raises(SinkTimeout):
        view.wait_for_event("CUSTOMER.KYB_APPROVED", timeout=WAIT_S, after=mark)
    assert view.target_health.down is None


def test_short_waits_prove_nothing_and_do_not_count(watched):
    view = watched(probe=None)
    for _ in range(5):
        time_out(view, "CUSTOMER.KYC_APPROVED", timeout=0.05)  # what was left of a deadline
    assert view.target_health.down is None


def test_only_an_authentic_test_event_proves_the_path(ec_key, other_ec_key):
    """The mid-run probe: a TEST delivery signed with another key than the profile's proves
    that deliveries arrive, not that the run can trust any of them (a wrong key)."""
    pem = (
        ec_key.public_key()
        .public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)
        .decode()
    )
    body = b'{"test": true, "type": "TEST", "timestamp": "t", "webhookId": "w"}'
    signed = delivery(1, body, x_service_signature=sign_ec(ec_key, body))
    forged = delivery(2, body, x_service_signature=sign_ec(other_ec_key, body))
    assert TestEventProbe(200, signed, 1.0).unproven(pem) is None
    assert TestEventProbe(200, forged, 1.0).unproven(None) is None  # no key: any delivery
    assert "does not verify with --webhook-public-key" in (
        TestEventProbe(200, forged, 1.0).unproven(pem) or ""
    )
    assert "answered 404" in (TestEventProbe(404, None, 0.0).unproven(pem) or "")
    assert "no TEST delivery arrived within 2 s" in (
        TestEventProbe(200, None, 2.0).unproven(pem) or ""
    )


def _wait_for(
    view: WatchedSinkView,
    awaited: Awaited,
    predicate: Callable[[Delivery], bool] | None = None,
    timeout: float = WAIT_S,
) -> None:
    """A wait as the suite's event readers make it: a timeout fails the test (fail_wait)."""
    try:
        view.wait_for(
            predicate or awaited.sent, timeout=timeout, description=awaited.what, awaited=awaited
        )
    except SinkTimeout as timeout_:
        fail_wait(timeout_, "§6 Events", f"{awaited.what} arrives", observed="nothing", hint="")


COMPLETED = Awaited.event("OUTGOING_PAYMENT.COMPLETED", "an outgoing transaction", "REQ-A")


def test_a_thing_never_sent_is_not_waited_for_again_until_one_arrives(watched, sink, http, ec_key):
    view = watched(probe=lambda: None)  # deliveries reach the sink: the waits are the target's
    with pytest.raises(ConformanceFailure) as first:
        _wait_for(view, COMPLETED)
    assert first.value.charged_to == "REQ-A"
    assert (
        first.value.cause
        == "OUTGOING_PAYMENT.COMPLETED about an outgoing transaction was not delivered"
    )
    started = time.monotonic()
    with pytest.raises(ConformanceFailure, match="not waited for again") as again:
        _wait_for(view, COMPLETED, timeout=60)
    assert time.monotonic() - started < WAIT_S
    assert (again.value.charged_to, again.value.cause) == ("REQ-A", first.value.cause)
    # another thing is waited for as ever; one of the type arriving ends the memory
    kyc = Awaited.event("CUSTOMER.KYC_APPROVED", "an individual", "REQ-B")
    with pytest.raises(ConformanceFailure, match="KYC_APPROVED"):
        _wait_for(view, kyc)
    body = envelope("OUTGOING_PAYMENT.COMPLETED", "Transaction:1")
    post(http, sink, body, sign_ec(ec_key, body))
    _wait_for(view, COMPLETED, timeout=60)


def test_a_wait_of_a_type_not_shown_ends_at_once_until_what_it_awaited_arrives_late(
    watched, sink, http, ec_key
):
    view = watched(probe=lambda: None)
    claimed = Awaited("an event about a claimed invitation", "REQ-C")  # no type shown

    def about(invitation: str) -> Callable[[Delivery], bool]:
        return lambda d: invitation in d.body.decode()

    with pytest.raises(ConformanceFailure):
        _wait_for(view, claimed, about("Invitation:1"))
    started = time.monotonic()
    with pytest.raises(ConformanceFailure, match="not waited for again"):
        _wait_for(view, claimed, about("Invitation:2"), timeout=60)
    assert time.monotonic() - started < WAIT_S
    body = envelope("SOMETHING.CLAIMED", "Invitation:1")  # the first one's, late
    post(http, sink, body, sign_ec(ec_key, body))
    started = time.monotonic()
    with pytest.raises(ConformanceFailure, match="claimed invitation arrives"):
        _wait_for(view, claimed, about("Invitation:3"))
    assert time.monotonic() - started >= WAIT_S  # waited again


def test_a_thing_that_arrived_only_forged_is_waited_for_again(
    watched, sink, http, ec_key, other_ec_key
):
    view = watched(probe=lambda: None)
    body = envelope("OUTGOING_PAYMENT.COMPLETED", "Transaction:1")
    post(http, sink, body, sign_ec(other_ec_key, body))  # sent, but signed wrongly
    with pytest.raises(ConformanceFailure, match="signed"):
        _wait_for(view, COMPLETED)
    started = time.monotonic()
    with pytest.raises(ConformanceFailure, match="signed"):
        _wait_for(view, COMPLETED)
    assert time.monotonic() - started >= WAIT_S
