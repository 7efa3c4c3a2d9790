"""``CUSTOMER.KYC_*`` / ``CUSTOMER.KYB_*`` events for a status change (§3 Customer
verification, §6 Events).

A decision reached without passing through ``PENDING`` first is reported as the two steps
§3 shows: ``_PENDING``, then the decision with a strictly later timestamp. Call
``announce`` inside the transaction that stores the change, so the events exist exactly
when it does.
"""

from __future__ import annotations

from dataclasses import replace

from reference.customers.store import PENDING, UNVERIFIED, Customer, render
from reference.kernel.clock import iso, later_than, utc_now
from reference.kernel.seams import seam
from reference.kernel.services import EventQueue
from reference.kernel.settings import ServerSettings

NEXT_STAMP = seam(
    "customers.next_event_stamp",
    "the timestamp of a status step's event, strictly after the previous step's"
    " (context: previous)",
)


def steps(before: str, after: str) -> list[str]:
    """The statuses §3 walks from ``before`` to ``after`` (empty when unchanged)."""
    if after in (before, UNVERIFIED):
        return []
    if after == PENDING or before == PENDING:
        return [after]
    return [PENDING, after]


def announce(
    webhooks: EventQueue, settings: ServerSettings, before: str, customer: Customer
) -> list[str]:
    """Queue one event per step from ``before`` to the stored ``customer.status``; return
    the event types. ``data`` is the customer as it was at that step."""
    walked = steps(before, customer.status)
    stamp = iso(utc_now())
    types: list[str] = []
    for index, status in enumerate(walked):
        if index > 0:
            stamp = _next_stamp(stamp, settings)
        event_type = customer.event_prefix + status
        snapshot = render(replace(customer, status=status))
        webhooks.enqueue_event(customer.platform_id, event_type, snapshot, timestamp=stamp)
        types.append(event_type)
    return types


def _next_stamp(previous: str, settings: ServerSettings) -> str:
    """A timestamp strictly after ``previous``."""
    return settings.seams.apply(NEXT_STAMP, later_than(previous), previous=previous)
