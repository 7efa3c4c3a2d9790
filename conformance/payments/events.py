"""Outgoing payment events (§3 Quote and transaction, §6 Events) as the sink saw them.

:class:`PaymentEvents` waits for the ``OUTGOING_PAYMENT.*`` events a transaction's walk must
emit and checks each of them: the envelope against ``webhooks/payment-event`` (``data`` is
the Transaction), that ``OUTGOING_PAYMENT.<STATUS>`` carries the transaction in that status,
and the order of the timestamps against the §3 state machine. Arrival order that differs
from timestamp order is an advisory (delivery ordering is not shown). Only authentic events
count (the sink's view sets aside those whose ``X-Service-Signature`` fails).
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Sequence

from conformance.contract import clauses
from conformance.contract.failures import check, fail
from conformance.webhooks.event_checks import EventReader, check_event_envelopes, fail_wait
from conformance.webhooks.sink import (
    Awaited,
    Delivery,
    SinkTimeout,
    check_order,
    dedupe_by_event_id,
)

__all__ = ["OUTGOING", "STATUS_EVENTS", "PaymentEvents", "awaited"]

OUTGOING = "OUTGOING_PAYMENT."
# OUTGOING_PAYMENT.<STATUS> events whose data is the transaction in that status (§6).
STATUS_EVENTS = ("PROCESSING", "COMPLETED", "FAILED")
FINAL_EVENTS = ("COMPLETED", "FAILED")
TRANSITION_CLAUSE = clauses.QUOTE_AND_TRANSACTION_STATES
EVENTS_CLAUSE = clauses.EVENTS
# the requirement stating that each event is emitted: a wait for it that runs out is charged
# there (and to WEBHOOK-OUTGOING-PAYMENT-STATUS for a status event)
EMITTED_BY = {
    "PROCESSING": "TRANSACTION-PENDING-TO-PROCESSING",
    "COMPLETED": "TRANSACTION-PROCESSING-TO-COMPLETED",
    "FAILED": "TRANSACTION-PROCESSING-TO-FAILED",
}
REFUND_REQUIREMENT = "REFUND-OUTGOING-LIFECYCLE"
STATUS_REQUIREMENT = "WEBHOOK-OUTGOING-PAYMENT-STATUS"


def awaited(types: set[str]) -> Awaited:
    """What a wait for one of ``types`` (``OUTGOING_PAYMENT.*``) awaits, and where it is
    charged: a refund event to the refund's lifecycle, a status event to its transition."""
    statuses = {t.removeprefix(OUTGOING) for t in types}
    if all(s.startswith("REFUND_") for s in statuses):
        return Awaited.event(types, "a failed outgoing transaction", REFUND_REQUIREMENT)
    transitions = sorted({EMITTED_BY.get(s, STATUS_REQUIREMENT) for s in statuses})
    owners = tuple(t for t in (*transitions[1:], STATUS_REQUIREMENT) if t != transitions[0])
    return Awaited.event(types, "an outgoing transaction", transitions[0], owners)


class PaymentEvents(EventReader):
    """Waits for and checks one test's outgoing payment events."""

    def about(self, transaction_id: str) -> list[Delivery]:
        """Every ``OUTGOING_PAYMENT.*`` event about the transaction, one per event id."""
        return dedupe_by_event_id(
            d
            for d in self.sink.deliveries()
            if (d.event_type or "").startswith(OUTGOING) and d.resource_id == transaction_id
        )

    def wait(
        self,
        transaction_id: str,
        kinds: Sequence[str | tuple[str, ...]],
        *,
        why: str,
        clause: str = TRANSITION_CLAUSE,
    ) -> list[Delivery]:
        """Wait for one event of each kind (``COMPLETED``, or alternatives as a tuple).

        Returns every event about the transaction; fails with ``clause`` naming ``why``.
        """
        __tracebackhide__ = True
        deadline = time.monotonic() + self.timeout
        for kind in kinds:
            wanted = {OUTGOING + k for k in ((kind,) if isinstance(kind, str) else kind)}

            def arrived(delivery: Delivery, wanted: set[str] = wanted) -> bool:
                return delivery.event_type in wanted and delivery.resource_id == transaction_id

            # COMPLETED and FAILED end a transaction: one rules the other out
            excluded = (
                {OUTGOING + k for k in FINAL_EVENTS} - wanted
                if wanted & {OUTGOING + k for k in FINAL_EVENTS}
                else set()
            )

            def ruled_out(delivery: Delivery, excluded: set[str] = excluded) -> bool:
                return delivery.event_type in excluded and delivery.resource_id == transaction_id

            try:
                self.sink.wait_for(
                    arrived,
                    timeout=max(deadline - time.monotonic(), 0.0),
                    description=f"{' or '.join(sorted(wanted))} for {transaction_id}",
                    rules_out=ruled_out,
                    awaited=awaited(wanted),
                )
            except SinkTimeout as timeout:
                fail_wait(
                    timeout,
                    clause,
                    f"{why} emits {' or '.join(sorted(wanted))}",
                    observed=[d.summary() for d in self.about(transaction_id)]
                    or f"no OUTGOING_PAYMENT event about the transaction within {self.timeout:g} s",
                    hint="check that events reach the configured webhookEndpoint and that data "
                    "is the Transaction (data.id)",
                )
        return self.about(transaction_id)

    def check(self, events: Iterable[Delivery]) -> None:
        """Envelope, data status and order of a transaction's (authentic) events."""
        __tracebackhide__ = True
        events = list(events)
        self.check_envelopes(events)
        self.check_statuses(events)
        self.check_order(events)

    def check_envelopes(self, events: Iterable[Delivery]) -> None:
        """Every event is the envelope {id: Webhook:<uuid>, type, timestamp, data: Transaction}."""
        __tracebackhide__ = True
        check_event_envelopes(
            self.registry,
            events,
            "a payment event is the envelope {id: Webhook:<uuid>, type, timestamp, data} "
            "whose data is the Transaction",
        )

    def check_statuses(self, events: Iterable[Delivery]) -> None:
        """OUTGOING_PAYMENT.<STATUS> carries the transaction in that status."""
        __tracebackhide__ = True
        for delivery in events:
            status = (delivery.event_type or "").removeprefix(OUTGOING)
            if status not in STATUS_EVENTS:
                continue
            body = delivery.json
            data = body.get("data") if isinstance(body, dict) else None
            observed = data.get("status") if isinstance(data, dict) else data
            check(
                observed == status,
                EVENTS_CLAUSE,
                f"{delivery.event_type} is emitted when the outgoing transaction reaches "
                f"{status}: its data is the transaction in that status",
                expected=status,
                observed=observed,
                hint=delivery.summary(),
                requirement="WEBHOOK-OUTGOING-PAYMENT-STATUS",
            )

    def check_order(self, events: Iterable[Delivery]) -> None:
        """By timestamp: PROCESSING, then COMPLETED or FAILED; refund events only after FAILED."""
        __tracebackhide__ = True
        report = check_order(events)
        for message in report.advisories:
            self.advisory(message)
        if report.violations:
            fail(
                TRANSITION_CLAUSE,
                "outgoing payment events follow the state machine: PROCESSING, then "
                "COMPLETED or FAILED; REFUND_PENDING only after FAILED, then REFUND_COMPLETED "
                "or REFUND_FAILED (ordered by timestamp)",
                observed="; ".join(report.violations),
            )
