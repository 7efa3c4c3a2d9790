"""Customer verification events (§3 Customer verification, §6 Events) as the sink saw them.

:class:`CustomerEvents` waits for the ``CUSTOMER.KYC_*`` / ``CUSTOMER.KYB_*`` events a
transition must emit and checks every event about the customer: its envelope against
``webhooks/envelope``, its family (individuals KYC, businesses KYB) and the order of the
timestamps against the §3 state machine. Only authentic events count (the sink's view sets
aside those whose ``X-Service-Signature`` fails; the webhooks part reports them). Arrival order that
differs from timestamp order is an advisory (delivery ordering is not shown).

The payload of customer events is not shown, so an event is taken to be about a customer
when its ``data`` is the customer (``data.id``) or names it (``data.customerId``,
``data.customer.id``).
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterable, Sequence
from dataclasses import replace
from typing import Any

from conformance.contract import clauses
from conformance.contract.failures import ConformanceFailure, check
from conformance.customers.onboarding import status_field
from conformance.webhooks.event_checks import (
    EventReader,
    check_event_envelopes,
    fail_wait,
    names_resource,
)
from conformance.webhooks.sink import (
    Awaited,
    Delivery,
    SinkTimeout,
    check_order,
    dedupe_by_event_id,
)

__all__ = ["CustomerEvents", "awaited", "event_family", "event_type", "mentions"]

TRANSITION_CLAUSE = clauses.CUSTOMER_VERIFICATION_STATES
EVENTS_CLAUSE = clauses.EVENTS


def event_family(kind: str) -> str:
    """``KYB`` for businesses, ``KYC`` for individuals."""
    return "KYB" if kind == "BUSINESS" else "KYC"


def event_type(kind: str, status: str) -> str:
    """``CUSTOMER.KYC_<STATUS>`` or ``CUSTOMER.KYB_<STATUS>``."""
    return f"CUSTOMER.{event_family(kind)}_{status}"


def mentions(delivery: Delivery, customer_id: str) -> bool:
    """Whether a delivery's ``data`` is, or names, the customer."""
    return names_resource(delivery, customer_id, ("customerId",), ("customer",))


def _as_resource(delivery: Delivery, customer_id: str) -> Delivery:
    """The delivery as the ordering check reads it: ``data.id`` is the customer's id."""
    if delivery.resource_id == customer_id:
        return delivery
    envelope = delivery.json if isinstance(delivery.json, dict) else {}
    body = {k: envelope.get(k) for k in ("id", "type", "timestamp")}
    body["data"] = {"id": customer_id}
    return replace(delivery, body=json.dumps(body).encode())


# (family, status) -> the transition that emits the event (§3 Customer verification)
TRANSITION_REQUIREMENTS = {
    ("KYC", "PENDING"): "KYC-SUBMISSION-PENDING",
    ("KYC", "APPROVED"): "KYC-APPROVED",
    ("KYC", "REJECTED"): "KYC-REJECTED",
    ("KYB", "PENDING"): "KYB-SUBMISSION-PENDING",
    ("KYB", "APPROVED"): "KYB-APPROVED",
    ("KYB", "REJECTED"): "KYB-REJECTED",
}

# Verification outcomes no later event changes (§3)
FINAL_STATUSES = ("APPROVED", "REJECTED")
# the requirement stating that an event is emitted (a wait for it that runs out is charged
# there; a test holding the family's requirement fails under that one)
FAMILY_REQUIREMENT = "WEBHOOK-CUSTOMER-EVENT-FAMILY"
HOSTED_FLOW_REQUIREMENT = "KYC-HOSTED-FLOW-PENDING"
EMITTED_BY = {
    "CUSTOMER.KYC_PENDING": "KYC-SUBMISSION-PENDING",
    "CUSTOMER.KYC_APPROVED": "KYC-APPROVED",
    "CUSTOMER.KYC_REJECTED": "KYC-REJECTED",
    "CUSTOMER.KYB_PENDING": "KYB-SUBMISSION-PENDING",
    "CUSTOMER.KYB_APPROVED": "KYB-APPROVED",
    "CUSTOMER.KYB_REJECTED": "KYB-REJECTED",
}


def awaited(kind: str) -> Awaited:
    """What a wait for the event type ``kind`` awaits, and the requirement it is charged to."""
    about = "a business" if kind.startswith("CUSTOMER.KYB_") else "an individual"
    requirement = EMITTED_BY.get(kind, FAMILY_REQUIREMENT)
    owners = (FAMILY_REQUIREMENT,) if requirement != FAMILY_REQUIREMENT else ()
    if kind.endswith("_PENDING"):  # the hosted flow's submission emits it too
        owners = (HOSTED_FLOW_REQUIREMENT, *owners)
    return Awaited.event(kind, f"{about} whose verification status changed", requirement, owners)


class CustomerEvents(EventReader):
    """Waits for and checks one test's customer events."""

    def about(self, customer_id: str) -> list[Delivery]:
        """Every ``CUSTOMER.*`` event about the customer so far, one per event id."""
        return dedupe_by_event_id(
            d
            for d in self.sink.deliveries()
            if (d.event_type or "").startswith("CUSTOMER.") and mentions(d, customer_id)
        )

    def wait(
        self, customer: dict[str, Any], statuses: Sequence[str], *, why: str
    ) -> list[Delivery]:
        """Wait for ``CUSTOMER.<family>_<status>`` for each status; every event about it.

        ``why`` names the transition that emits them, for the failure message.
        """
        __tracebackhide__ = True
        kind, customer_id = customer.get("customerType", ""), customer["id"]
        deadline = time.monotonic() + self.timeout
        for status in statuses:
            wanted = event_type(kind, status)

            def arrived(delivery: Delivery, wanted: str = wanted) -> bool:
                return delivery.event_type == wanted and mentions(delivery, customer_id)

            # APPROVED and REJECTED are final: one rules the other out
            excluded = (
                {event_type(kind, s) for s in FINAL_STATUSES} - {wanted}
                if status in FINAL_STATUSES
                else set()
            )

            def ruled_out(delivery: Delivery, excluded: set[str] = excluded) -> bool:
                return delivery.event_type in excluded and mentions(delivery, customer_id)

            try:
                self.sink.wait_for(
                    arrived,
                    timeout=max(deadline - time.monotonic(), 0.0),
                    description=f"{wanted} for {customer_id}",
                    rules_out=ruled_out,
                    awaited=awaited(wanted),
                )
            except SinkTimeout as timeout:
                fail_wait(
                    timeout,
                    TRANSITION_CLAUSE,
                    f"{why} emits {wanted}",
                    expected=[event_type(kind, s) for s in statuses],
                    observed=[d.summary() for d in self.about(customer_id)]
                    or f"no event about the customer within {self.timeout:g} s",
                    hint="check that events reach the configured webhookEndpoint and that data "
                    "carries the customer (data.id or data.customerId)",
                    requirement=TRANSITION_REQUIREMENTS.get((event_family(kind), status)),
                )
        return self.about(customer_id)

    def expect(
        self, customer: dict[str, Any], statuses: Sequence[str], *, why: str
    ) -> list[Delivery]:
        """Wait for the events of a transition, then check every event about the customer."""
        __tracebackhide__ = True
        events = self.wait(customer, statuses, why=why) if statuses else self.about(customer["id"])
        self.check(customer, events)
        return events

    def check(self, customer: dict[str, Any], events: Iterable[Delivery]) -> None:
        """Envelope, family and order of the customer's (authentic) events."""
        __tracebackhide__ = True
        events = list(events)
        self.check_envelopes(events)
        self.check_family(customer, events)
        self.check_order(customer, events)

    def check_family(self, customer: dict[str, Any], events: Iterable[Delivery]) -> None:
        """Individuals' events are CUSTOMER.KYC_*, businesses' CUSTOMER.KYB_*."""
        __tracebackhide__ = True
        kind = customer.get("customerType", "")
        family = f"CUSTOMER.{event_family(kind)}_"
        for delivery in events:
            check(
                (delivery.event_type or "").startswith(family),
                EVENTS_CLAUSE,
                "status changes of individuals emit CUSTOMER.KYC_* events and those of "
                "businesses CUSTOMER.KYB_* events, never the other family",
                expected=f"{family}* for a {kind or 'customer'}",
                observed=delivery.summary(),
                requirement="WEBHOOK-CUSTOMER-EVENT-FAMILY",
            )

    def check_order(self, customer: dict[str, Any], events: Iterable[Delivery]) -> None:
        """By timestamp, the events walk §3: PENDING, then APPROVED or REJECTED (final)."""
        __tracebackhide__ = True
        report = check_order(_as_resource(d, customer["id"]) for d in events)
        for message in report.advisories:
            self.advisory(message)
        if report.violations:
            # walked to a final status: the events break that transition's order (after PENDING)
            final = customer.get(status_field(customer))
            family = event_family(customer.get("customerType", ""))
            mine = TRANSITION_REQUIREMENTS.get((family, str(final)))
            failure = ConformanceFailure(
                TRANSITION_CLAUSE,
                "events follow the state machine: PENDING, then APPROVED or REJECTED, which "
                "are final (ordered by timestamp)",
                observed="; ".join(report.violations),
                requirement=mine if final in FINAL_STATUSES else None,
            )
            # one defect however many tests read those events: charged to the transition
            # (a test about any verification transition fails on it, any other is blocked)
            owners = tuple(TRANSITION_REQUIREMENTS.values())
            failure.charged_to = mine if final in FINAL_STATUSES and mine else owners[0]
            failure.owners = tuple(rid for rid in owners if rid != failure.charged_to)
            failure.cause = "CUSTOMER.* events break §3's order by timestamp"
            raise failure

    def check_envelopes(self, events: Iterable[Delivery]) -> None:
        """Every event is the envelope {id: Webhook:<uuid>, type, timestamp, data}."""
        __tracebackhide__ = True
        check_event_envelopes(
            self.registry,
            events,
            "every event except the test event is an envelope {id: Webhook:<uuid>, type, "
            "timestamp, data}",
        )
