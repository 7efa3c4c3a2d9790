"""Waiting for ``CARD_TRANSACTION.*`` events about one card transaction (§6 Events: every
card transaction state transition fires one, carrying the full card transaction; a refund
row fires its own).

An event is about a row when its ``data`` is the row (``data.id``). The type names beyond
``SETTLED``, ``DECLINED`` and ``VOIDED`` are not shown, so :func:`wait_card_event` can wait
for any ``CARD_TRANSACTION.*`` type as well as for a named one.
"""

from __future__ import annotations

import time

from conformance.contract import clauses
from conformance.webhooks.event_checks import fail_wait
from conformance.webhooks.resource_events import ResourceEvents
from conformance.webhooks.sink import Awaited, Delivery, SinkTimeout

__all__ = ["EVENTS_CLAUSE", "PREFIX", "REQUIREMENT", "wait_card_event"]

PREFIX = "CARD_TRANSACTION."
EVENTS_CLAUSE = clauses.EVENTS + " — CARD_TRANSACTION.*"
REQUIREMENT = "WEBHOOK-CARD-TRANSACTION-EVERY-TRANSITION"  # a wait that runs out: charged here


def wait_card_event(
    events: ResourceEvents,
    row_id: str,
    *,
    after: int,
    why: str,
    event_type: str | None = None,
    deadline: float | None = None,
) -> list[Delivery]:
    """Wait for a ``CARD_TRANSACTION.*`` event (``event_type`` when given) about the row,
    delivered after ``after``; return every card event about it since then."""
    __tracebackhide__ = True
    wanted = event_type or f"{PREFIX}*"

    def arrived(delivery: Delivery) -> bool:
        kind = delivery.event_type or ""
        matches = kind == event_type if event_type else kind.startswith(PREFIX)
        return matches and delivery.resource_id == row_id

    end = deadline if deadline is not None else time.monotonic() + events.timeout
    try:
        events.sink.wait_for_all(
            arrived,
            1,
            timeout=max(end - time.monotonic(), 0.0),
            description=f"{wanted} about {row_id}",
            after=after,
            awaited=Awaited.event(wanted, "a card transaction", REQUIREMENT),
        )
    except SinkTimeout as timeout:
        fail_wait(
            timeout,
            EVENTS_CLAUSE,
            f"{why} fires {wanted} carrying the card transaction (data.id)",
            observed=[d.summary() for d in events.about(row_id, PREFIX, after=after)]
            or f"no {PREFIX}* event about {row_id} within {events.timeout:g} s",
            hint="check that card events reach the configured webhookEndpoint and that data is "
            "the card transaction",
            requirement="WEBHOOK-CARD-TRANSACTION-EVERY-TRANSITION",
        )
    return events.about(row_id, PREFIX, after=after)
