"""Events about one resource as the sink saw them: ``EXTERNAL_ACCOUNT.STATUS_UPDATED`` (§3
External account, §6 Events) and ``INCOMING_PAYMENT.REFUND_*`` (§3 Quote and transaction,
§6 Events).

:class:`ResourceEvents` waits for the events a walk must emit about a resource and checks
each of them: the envelope against its schema (``contract.webhook_schema``) and that their
timestamps follow the walk's order. Only authentic events count (the sink's view sets aside
those whose ``X-Service-Signature`` fails). Arrival order
that differs from timestamp order is an advisory (delivery ordering is not shown).

An event is about the resource when its ``data`` is the resource (``data.id``: payment
events, whose ``data`` is the Transaction), unless the caller says how else to tell
(``relates``: for events whose payload is not shown). ``after`` (a :meth:`mark` taken before
the trigger) keeps only the events delivered after it.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence

from conformance.contract import clauses
from conformance.contract.failures import check
from conformance.webhooks.event_checks import EventReader, check_event_envelopes, fail_wait
from conformance.webhooks.sink import Awaited, Delivery, SinkTimeout, dedupe_by_event_id

__all__ = ["Relates", "ResourceEvents"]

EVENTS_CLAUSE = clauses.EVENTS

Relates = Callable[[Delivery], bool]  # whether a delivery is about the resource


# The final events of an incoming payment's refund (§6): one rules the other out
FINAL_REFUND_EVENTS = frozenset(
    ("INCOMING_PAYMENT.REFUND_COMPLETED", "INCOMING_PAYMENT.REFUND_FAILED")
)


class ResourceEvents(EventReader):
    """Waits for and checks the events of one test about one resource."""

    def mark(self) -> int:
        """The sink's newest delivery so far: pass it as ``after`` to see only later ones."""
        return self.sink.mark()

    def about(
        self, resource_id: str, prefix: str, *, relates: Relates | None = None, after: int = 0
    ) -> list[Delivery]:
        """Every event whose type starts with ``prefix`` about the resource (delivered after
        ``after``), one per id."""
        related = relates or _is_resource(resource_id)
        return dedupe_by_event_id(
            d
            for d in self.sink.deliveries()
            if d.seq > after and (d.event_type or "").startswith(prefix) and related(d)
        )

    def wait(
        self,
        resource_id: str,
        types: Sequence[str | tuple[str, ...]],
        *,
        count: int = 1,
        prefix: str,
        why: str,
        clause: str,
        about: str,
        requirement: str,
        relates: Relates | None = None,
        after: int = 0,
        hint: str = "check that events reach the configured webhookEndpoint and that data "
        "is the resource (data.id)",
    ) -> list[Delivery]:
        """Wait for each of ``types`` (alternatives as a tuple), ``count`` events of a plain
        type; return every event about the resource whose type starts with ``prefix``
        (delivered after ``after``). ``about`` names the kind of record in steady words
        ("an external account whose ownership verification succeeded"), ``requirement``
        the one stating the events are sent: a wait that runs out is charged to it."""
        __tracebackhide__ = True
        related = relates or _is_resource(resource_id)
        deadline = time.monotonic() + self.timeout
        for kind in types:
            wanted = {kind} if isinstance(kind, str) else set(kind)
            needed = count if isinstance(kind, str) else 1

            def arrived(delivery: Delivery, wanted: set[str] = wanted) -> bool:
                return delivery.event_type in wanted and related(delivery)

            # a refund ends COMPLETED or FAILED: one rules the other out
            excluded = set(FINAL_REFUND_EVENTS - wanted) if wanted & FINAL_REFUND_EVENTS else set()

            def ruled_out(delivery: Delivery, excluded: set[str] = excluded) -> bool:
                return delivery.event_type in excluded and related(delivery)

            try:
                self.sink.wait_for_all(
                    arrived,
                    needed,
                    timeout=max(deadline - time.monotonic(), 0.0),
                    description=f"{' or '.join(sorted(wanted))} about {resource_id}",
                    after=after,
                    rules_out=ruled_out,
                    awaited=Awaited.event(wanted, about, requirement),
                )
            except SinkTimeout as timeout:
                fail_wait(
                    timeout,
                    clause,
                    f"{why} fires {' or '.join(sorted(wanted))}",
                    expected=f"{needed} event(s)" if needed > 1 else None,
                    observed=[
                        d.summary()
                        for d in self.about(resource_id, prefix, relates=related, after=after)
                    ]
                    or f"no {prefix}* event about {resource_id} within {self.timeout:g} s",
                    hint=hint,
                )
        return self.about(resource_id, prefix, relates=related, after=after)

    def check(self, events: Sequence[Delivery], order: Sequence[str], statement: str) -> None:
        """Envelope and timestamp order of (authentic) events (``order``: the types as the
        walk emits them; events of one type keep their own order)."""
        __tracebackhide__ = True
        check_event_envelopes(self.registry, events, statement)
        by_time = sorted(events, key=lambda d: (d.timestamp is None, d.timestamp))
        stamps = [d.timestamp for d in by_time]
        check(
            all(s is not None for s in stamps) and len(set(stamps)) == len(stamps),
            EVENTS_CLAUSE,
            "each event of a resource's walk carries its own timestamp",
            observed=[d.summary() for d in by_time],
        )
        rank = {kind: i for i, kind in enumerate(order)}
        ranks = [rank.get(d.event_type or "", len(order)) for d in by_time]
        check(
            ranks == sorted(ranks),
            EVENTS_CLAUSE,
            f"by timestamp the events follow the walk: {' then '.join(order)}",
            observed=[f"{d.timestamp}: {d.event_type}" for d in by_time],
        )
        if [d.seq for d in by_time] != sorted(d.seq for d in by_time):
            self.advisory(
                "events arrived in an order other than their timestamps' (delivery ordering "
                "is not shown): " + ", ".join(d.summary() for d in events)
            )


def _is_resource(resource_id: str) -> Relates:
    """``data`` is the resource: ``data.id`` is its id."""

    def related(delivery: Delivery) -> bool:
        return delivery.resource_id == resource_id

    return related
