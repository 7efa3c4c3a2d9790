"""Event ordering against the state machines of §3 States and transitions.

Each event family is a :class:`StateMachine` held as data: its event types and the steps
§3 allows between them. :func:`check_order` groups deliveries by resource (``data.id``) and
family, counts each event id once, sorts each group by the event ``timestamp`` (ties broken
by the machine's rank, so equal timestamps in a valid order pass) and walks the machine.

Verdicts (DESIGN.md, Verdicts):

- a step the machine cannot make (an earlier state after a later one, anything after a
  final state, a refund before ``FAILED``) is a **violation**;
- the first event observed may be any state (the suite may have missed earlier ones), and a
  step that skips states is only an **advisory** (the skipped event may still be arriving);
- arrival order (``seq``) that differs from timestamp order is an **advisory**: §6 Events
  says delivery ordering is not shown;
- event types no machine knows are ignored.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from itertools import pairwise

from conformance.contract import clauses, transitions

from .store import Delivery, dedupe_by_event_id

__all__ = [
    "CUSTOMER_KYB",
    "CUSTOMER_KYC",
    "EXTERNAL_ACCOUNT",
    "INCOMING_PAYMENT",
    "MACHINES",
    "OUTGOING_PAYMENT",
    "OrderReport",
    "StateMachine",
    "check_order",
    "machine_for",
]


@dataclass(frozen=True, slots=True)
class StateMachine:
    """One event family's states (full event type strings) and the steps §3 allows.

    ``ordered=False`` marks a family with no order constraint (it is not checked).
    """

    name: str
    clause: str
    states: tuple[str, ...]
    steps: tuple[tuple[str, str], ...]
    ordered: bool = True
    note: str = ""

    def successors(self, state: str) -> tuple[str, ...]:
        """The states §3 allows directly after ``state``."""
        return tuple(after for before, after in self.steps if before == state)

    def is_final(self, state: str) -> bool:
        """Whether nothing may follow ``state``."""
        return not self.successors(state)

    def path(self, start: str, goal: str) -> tuple[str, ...] | None:
        """The shortest walk from ``start`` to ``goal`` (both included), or ``None``."""
        queue: deque[tuple[str, ...]] = deque([(start,)])
        seen = {start}
        while queue:
            walk = queue.popleft()
            for nxt in self.successors(walk[-1]):
                if nxt == goal:
                    return (*walk, nxt)
                if nxt not in seen:
                    seen.add(nxt)
                    queue.append((*walk, nxt))
        return None

    def rank(self, state: str) -> int:
        """The length of the longest walk from a first state to ``state`` (tie-breaker)."""
        best = 0
        for before, after in self.steps:
            if after == state and before != state:
                best = max(best, self.rank(before) + 1)
        return best


def _short(event_type: str) -> str:
    return event_type.rsplit(".", 1)[-1]


def _steps(
    prefix: str, machine: transitions.Transitions, among: tuple[str, ...], rename: str = ""
) -> tuple[tuple[str, str], ...]:
    """``machine``'s steps between the states ``among``, as event types ``prefix`` +
    ``rename`` + state."""
    return tuple(
        (prefix + rename + before, prefix + rename + after)
        for before, after in machine.steps
        if before in among and after in among
    )


# the transaction states an OUTGOING_PAYMENT event is sent for, and the refund a FAILED
# one starts (§3 lists both in one table; contract/transitions.py holds them)
_PAID = ("PROCESSING", "COMPLETED", "FAILED")
_REFUND = tuple(transitions.REFUND.states)


def _refund_steps(prefix: str) -> tuple[tuple[str, str], ...]:
    return _steps(prefix, transitions.REFUND, _REFUND, rename="REFUND_")


_OP = "OUTGOING_PAYMENT."
OUTGOING_PAYMENT = StateMachine(
    name="OUTGOING_PAYMENT",
    clause=transitions.TRANSACTION.clause,
    states=tuple(_OP + s for s in _PAID) + tuple(_OP + "REFUND_" + s for s in _REFUND),
    steps=(
        *_steps(_OP, transitions.TRANSACTION, _PAID),
        (_OP + transitions.REFUND_STARTS_AFTER, _OP + "REFUND_" + _REFUND[0]),
        *_refund_steps(_OP),
    ),
    note="PROCESSING, then COMPLETED or FAILED; refund events only after FAILED",
)

_IP = "INCOMING_PAYMENT."
INCOMING_PAYMENT = StateMachine(
    name="INCOMING_PAYMENT",
    clause=transitions.REFUND.clause,
    states=tuple(_IP + "REFUND_" + s for s in _REFUND),
    steps=_refund_steps(_IP),
    note="refund pending, then completed or failed",
)


def _verification(kind: str) -> StateMachine:
    prefix = f"CUSTOMER.{kind}_"
    decided = ("PENDING", "APPROVED", "REJECTED")  # the states a verification event names
    return StateMachine(
        name=f"CUSTOMER.{kind}",
        # the heading without the fields it names: the messages name the field themselves
        clause=transitions.VERIFICATION.clause.split(" (")[0],
        states=tuple(prefix + s for s in decided),
        steps=_steps(prefix, transitions.VERIFICATION, decided),
        note="PENDING, then APPROVED or REJECTED, which are final",
    )


CUSTOMER_KYC = _verification("KYC")
CUSTOMER_KYB = _verification("KYB")

EXTERNAL_ACCOUNT = StateMachine(
    name="EXTERNAL_ACCOUNT",
    clause=clauses.EXTERNAL_ACCOUNT_STATES,
    states=("EXTERNAL_ACCOUNT.STATUS_UPDATED",),
    steps=(),
    ordered=False,
    note="each status change fires STATUS_UPDATED; no order constraint",
)

MACHINES: tuple[StateMachine, ...] = (
    OUTGOING_PAYMENT,
    INCOMING_PAYMENT,
    CUSTOMER_KYC,
    CUSTOMER_KYB,
    EXTERNAL_ACCOUNT,
)
"""Every event family the ordering check knows."""


def machine_for(
    event_type: str | None, machines: Iterable[StateMachine] = MACHINES
) -> StateMachine | None:
    """The machine whose states include ``event_type``, or ``None``."""
    if event_type is None:
        return None
    return next((m for m in machines if event_type in m.states), None)


@dataclass(frozen=True, slots=True)
class OrderReport:
    """The result of :func:`check_order`: violations fail a test, advisories do not."""

    violations: tuple[str, ...] = ()
    advisories: tuple[str, ...] = ()

    @property
    def ok(self) -> bool:
        """No violations."""
        return not self.violations


def _order_key(machine: StateMachine, delivery: Delivery) -> tuple[datetime, int, int]:
    """Timestamp, then the machine's rank (ties in a valid order pass), then arrival."""
    stamp = delivery.timestamp
    assert stamp is not None  # undated deliveries are left out before sorting
    return stamp, machine.rank(delivery.event_type or ""), delivery.seq


def _raw_timestamp(delivery: Delivery) -> str:
    parsed = delivery.json
    value = parsed.get("timestamp") if isinstance(parsed, dict) else None
    return str(value)


def check_order(
    deliveries: Iterable[Delivery], machines: Iterable[StateMachine] = MACHINES
) -> OrderReport:
    """Check per-resource event order against the §3 state machines."""
    machine_list = tuple(machines)
    violations: list[str] = []
    advisories: list[str] = []
    groups: dict[tuple[str, str], tuple[StateMachine, list[Delivery]]] = {}
    for delivery in dedupe_by_event_id(deliveries):
        machine = machine_for(delivery.event_type, machine_list)
        resource = delivery.resource_id
        if machine is None or not machine.ordered or resource is None:
            continue
        if delivery.timestamp is None:
            advisories.append(
                f"{machine.clause}: {delivery.event_type} for {resource} (delivery "
                f"#{delivery.seq}) has no parseable timestamp "
                f"({_raw_timestamp(delivery)}); left out of the ordering check"
            )
            continue
        groups.setdefault((resource, machine.name), (machine, []))[1].append(delivery)

    for (resource, _), (machine, items) in groups.items():
        by_time = sorted(items, key=lambda d: _order_key(machine, d))
        for before, after in pairwise(by_time):
            finding = _step(machine, resource, before, after)
            if finding is not None:
                kind, message = finding
                (violations if kind == "violation" else advisories).append(message)
        advisory = _arrival_advisory(machine, resource, items)
        if advisory:
            advisories.append(advisory)
    return OrderReport(tuple(violations), tuple(advisories))


def _step(
    machine: StateMachine, resource: str, before: Delivery, after: Delivery
) -> tuple[str, str] | None:
    """Judge one step of the walk: ``None`` if fine, else ``(kind, message)``."""
    b, a = before.event_type or "", after.event_type or ""
    stamps = f"({_raw_timestamp(before)}, {_raw_timestamp(after)})"
    where = f"{machine.clause}: "
    if b == a:
        if machine.is_final(b):
            return "violation", (
                f"{where}{a} for {resource} came again after final {b} by timestamp "
                f"{stamps}; {_short(b)} is final: nothing follows it"
            )
        return "advisory", (
            f"{where}{a} for {resource} was sent twice under different event ids "
            f"{stamps} ({before.event_id}, {after.event_id})"
        )
    walk = machine.path(b, a)
    if walk is not None:
        if len(walk) == 2:
            return None
        missing = ", ".join(walk[1:-1])
        return "advisory", (
            f"{where}{a} for {resource} follows {b} by timestamp {stamps} with no {missing} "
            "between them; the skipped event may not have arrived yet"
        )
    if machine.path(a, b) is not None:
        return "violation", (
            f"{where}{b} for {resource} came before {a} by timestamp {stamps}; "
            f"expected {_short(a)} first ({machine.note})"
        )
    if machine.is_final(b):
        return "violation", (
            f"{where}{a} for {resource} came after {b} by timestamp {stamps}; "
            f"{_short(b)} is final: nothing follows it ({machine.note})"
        )
    allowed = ", ".join(_short(s) for s in machine.successors(b))
    return "violation", (
        f"{where}{a} for {resource} came after {b} by timestamp {stamps}; after "
        f"{_short(b)} only {allowed} may follow ({machine.note})"
    )


def _arrival_advisory(machine: StateMachine, resource: str, items: list[Delivery]) -> str | None:
    by_seq = sorted(items, key=lambda d: d.seq)
    inverted = any(
        first.timestamp is not None
        and later.timestamp is not None
        and first.timestamp > later.timestamp
        for i, first in enumerate(by_seq)
        for later in by_seq[i + 1 :]
    )
    if not inverted:
        return None
    arrived = ", ".join(_short(d.event_type or "?") for d in by_seq)
    by_time = sorted(by_seq, key=lambda d: _order_key(machine, d))
    stamped = ", ".join(_short(d.event_type or "?") for d in by_time)
    return (
        f"{machine.name} events for {resource} arrived in the order {arrived} but their "
        f"timestamps order them {stamped}; delivery ordering is not shown (§6 Events), so "
        "this is not a failure"
    )
