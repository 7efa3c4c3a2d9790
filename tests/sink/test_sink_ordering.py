"""Event order per resource against the §3 state machines; arrival order is advisory only."""

from __future__ import annotations

import uuid

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conformance.webhooks.sink import (
    CUSTOMER_KYB,
    CUSTOMER_KYC,
    EXTERNAL_ACCOUNT,
    INCOMING_PAYMENT,
    MACHINES,
    OUTGOING_PAYMENT,
    Delivery,
    StateMachine,
    check_order,
    machine_for,
)

from .sink_helpers import delivery, envelope, transaction_id

OP = "OUTGOING_PAYMENT."
CUSTOMER = "Customer:5d7e2a40-1c6b-4f0e-8f7a-2b9d3c4e5f60"


def _events(
    resource: str, *steps: tuple[str, float], arrival: list[int] | None = None
) -> list[Delivery]:
    """Deliveries for ``(event_type, seconds)`` steps, arriving in ``arrival`` order."""
    bodies = [envelope(kind, resource, at=at) for kind, at in steps]
    order = arrival if arrival is not None else list(range(len(bodies)))
    return [delivery(seq, bodies[index]) for seq, index in enumerate(order, start=1)]


def test_a_valid_outgoing_sequence_passes() -> None:
    txn = transaction_id()
    report = check_order(_events(txn, (OP + "PROCESSING", 0), (OP + "COMPLETED", 1)))
    assert (report.violations, report.advisories) == ((), ())
    assert report.ok


def test_a_failure_and_its_refund_in_order_pass() -> None:
    steps = [(OP + s, t) for t, s in enumerate(["PROCESSING", "FAILED", "REFUND_PENDING"])]
    report = check_order(_events(transaction_id(), *steps, (OP + "REFUND_COMPLETED", 3)))
    assert (report.violations, report.advisories) == ((), ())


def test_completed_before_processing_by_timestamp_is_a_violation() -> None:
    txn = transaction_id()
    report = check_order(_events(txn, (OP + "COMPLETED", 0), (OP + "PROCESSING", 1)))
    [violation] = report.violations
    assert violation.startswith(
        f"§3 Quote and transaction: OUTGOING_PAYMENT.COMPLETED for {txn} came before "
        "OUTGOING_PAYMENT.PROCESSING by timestamp (2026-01-15T12:00:00Z, 2026-01-15T12:00:01Z)"
    )


def test_a_refund_event_before_failed_is_a_violation() -> None:
    txn = transaction_id()
    steps = [(OP + "PROCESSING", 0), (OP + "REFUND_PENDING", 1), (OP + "FAILED", 2)]
    report = check_order(_events(txn, *steps))
    assert len(report.violations) == 1
    assert f"REFUND_PENDING for {txn} came before OUTGOING_PAYMENT.FAILED" in report.violations[0]
    assert "refund events only after FAILED" in report.violations[0]


def test_a_refund_after_completed_is_a_violation() -> None:
    report = check_order(
        _events(transaction_id(), (OP + "COMPLETED", 0), (OP + "REFUND_PENDING", 1))
    )
    [violation] = report.violations
    assert "COMPLETED is final: nothing follows it" in violation


def test_arrival_order_differing_from_timestamp_order_is_only_an_advisory() -> None:
    txn = transaction_id()
    steps = [(OP + "PROCESSING", 0), (OP + "COMPLETED", 1)]
    report = check_order(_events(txn, *steps, arrival=[1, 0]))
    assert report.violations == ()
    [advisory] = report.advisories
    assert f"for {txn} arrived in the order COMPLETED, PROCESSING" in advisory
    assert "delivery ordering is not shown (§6 Events)" in advisory


def test_equal_timestamps_in_a_valid_order_pass_whatever_the_arrival() -> None:
    steps = [(OP + "PROCESSING", 0), (OP + "FAILED", 0), (OP + "REFUND_PENDING", 0)]
    report = check_order(_events(transaction_id(), *steps, arrival=[2, 0, 1]))
    assert (report.violations, report.advisories) == ((), ())


def test_a_kyc_event_after_approved_is_a_violation() -> None:
    steps = [("CUSTOMER.KYC_PENDING", 0), ("CUSTOMER.KYC_APPROVED", 1)]
    report = check_order(_events(CUSTOMER, *steps, ("CUSTOMER.KYC_REJECTED", 2)))
    [violation] = report.violations
    assert violation.startswith(
        f"§3 Customer verification: CUSTOMER.KYC_REJECTED for {CUSTOMER} came after "
        "CUSTOMER.KYC_APPROVED"
    )
    assert "APPROVED is final" in violation
    again = check_order(_events(CUSTOMER, *steps, ("CUSTOMER.KYC_APPROVED", 2)))
    assert len(again.violations) == 1
    kyb = [("CUSTOMER.KYB_APPROVED", 0), ("CUSTOMER.KYB_PENDING", 1)]
    assert len(check_order(_events(CUSTOMER, *kyb)).violations) == 1


def test_the_first_observed_event_may_be_any_state() -> None:
    report = check_order(_events(transaction_id(), (OP + "REFUND_PENDING", 0)))
    assert report.ok
    later = check_order(_events(transaction_id(), (OP + "FAILED", 0), (OP + "REFUND_FAILED", 1)))
    assert later.violations == ()
    [skipped] = later.advisories
    assert "with no OUTGOING_PAYMENT.REFUND_PENDING between them" in skipped


def test_unknown_and_unordered_types_are_ignored() -> None:
    txn = transaction_id()
    steps = [
        (OP + "COMPLETED", 0),
        (OP + "PENDING", 1),  # a status the pattern allows but no clause orders
        ("CARD_TRANSACTION.SETTLED", 2),
        ("EXTERNAL_ACCOUNT.STATUS_UPDATED", 3),
        ("EXTERNAL_ACCOUNT.STATUS_UPDATED", 2),
        ("TEST", 4),
    ]
    assert check_order(_events(txn, *steps, arrival=[5, 4, 3, 2, 1, 0])).ok


def test_each_resource_is_ordered_on_its_own_and_redeliveries_count_once() -> None:
    first, second = transaction_id(), transaction_id()
    processing = envelope(OP + "PROCESSING", first, at=0, event_id="Webhook:p")
    items = [
        delivery(1, processing),
        delivery(2, envelope(OP + "COMPLETED", second, at=0)),
        delivery(3, envelope(OP + "COMPLETED", first, at=5)),
        delivery(4, processing),  # a retry of the first envelope, arriving last
        delivery(5, envelope(OP + "PROCESSING", second, at=-1)),
    ]
    report = check_order(items)
    assert report.violations == ()
    [advisory] = report.advisories  # only `second` arrived out of timestamp order
    assert second in advisory


def test_an_undated_event_is_left_out_with_an_advisory() -> None:
    body = b'{"id": "Webhook:x", "type": "OUTGOING_PAYMENT.COMPLETED", "data": {"id": "T:1"}}'
    report = check_order([delivery(1, body)])
    assert report.violations == ()
    assert "no parseable timestamp" in report.advisories[0]


def test_the_machines_hold_the_clauses() -> None:
    assert OUTGOING_PAYMENT.successors(OP + "PROCESSING") == (OP + "COMPLETED", OP + "FAILED")
    assert OUTGOING_PAYMENT.successors(OP + "FAILED") == (OP + "REFUND_PENDING",)
    assert INCOMING_PAYMENT.is_final("INCOMING_PAYMENT.REFUND_COMPLETED")
    assert CUSTOMER_KYC.is_final("CUSTOMER.KYC_APPROVED")
    assert CUSTOMER_KYB.is_final("CUSTOMER.KYB_REJECTED")
    assert not EXTERNAL_ACCOUNT.ordered
    assert machine_for("CUSTOMER.KYB_PENDING") is CUSTOMER_KYB
    assert machine_for("CARD_TRANSACTION.SETTLED") is None


ORDERED = [m for m in MACHINES if m.ordered]


@st.composite
def valid_walks(draw: st.DrawFn) -> tuple[StateMachine, list[tuple[str, int]]]:
    """A walk the machine allows, from any state, with non-decreasing timestamps."""
    machine = draw(st.sampled_from(ORDERED))
    state = draw(st.sampled_from(machine.states))
    at = draw(st.integers(0, 5))
    walk = [(state, at)]
    while successors := machine.successors(state):
        if not draw(st.booleans()):
            break
        state = draw(st.sampled_from(successors))
        at += draw(st.integers(0, 3))  # 0 gives equal timestamps
        walk.append((state, at))
    return machine, walk


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    walks=st.lists(valid_walks(), min_size=1, max_size=3),
    data=st.data(),
)
def test_any_arrival_order_of_valid_sequences_gives_no_violation(
    walks: list[tuple[StateMachine, list[tuple[str, int]]]], data: st.DataObject
) -> None:
    bodies: list[bytes] = []
    for machine, walk in walks:
        resource = f"{machine.name}:{uuid.uuid4()}"
        for kind, at in walk:
            bodies.append(envelope(kind, resource, at=at))
    redelivered = data.draw(st.lists(st.sampled_from(bodies), max_size=3), label="redelivered")
    arrival = data.draw(st.permutations(bodies + redelivered), label="arrival")
    report = check_order([delivery(seq, body) for seq, body in enumerate(arrival, start=1)])
    assert report.violations == ()


@settings(max_examples=100, deadline=None)
@given(walk=valid_walks(), data=st.data())
def test_swapping_two_timestamps_of_a_valid_walk_is_a_violation(
    walk: tuple[StateMachine, list[tuple[str, int]]], data: st.DataObject
) -> None:
    machine, steps = walk
    if len(steps) < 2:
        return
    i = data.draw(st.integers(0, len(steps) - 2), label="i")
    j = data.draw(st.integers(i + 1, len(steps) - 1), label="j")
    stamps = list(range(len(steps)))  # strictly increasing
    stamps[i], stamps[j] = stamps[j], stamps[i]
    resource = f"{machine.name}:{uuid.uuid4()}"
    items = [
        delivery(seq, envelope(kind, resource, at=stamps[n]))
        for seq, (n, (kind, _)) in enumerate(enumerate(steps), start=1)
    ]
    assert check_order(items).violations
