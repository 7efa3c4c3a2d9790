"""Checks every delivered event must pass, whatever its family: the envelope; how a wait
that timed out fails (the signature rule, when what matched arrived only forged); and how
the suite tells which resource an event is about when its payload is not shown.

The events a test reads are authentic: the sink's view sets aside every delivery whose
signature fails, and the webhooks part reports those once
(``suites/webhooks/test_test_event.py``)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, NoReturn

from conformance.contract import clauses
from conformance.contract import endpoint_schemas as contract
from conformance.contract.failures import ConformanceFailure, check, fail
from conformance.contract.schemas import SchemaRegistry
from conformance.webhooks.delivery_health import NotAwaitedAgain
from conformance.webhooks.sink import Delivery, SinkTimeout, SinkView

_UNSET: Any = object()


@dataclass
class EventReader:
    """What each event family's waiter holds: the sink's view, the schema registry, the
    advisory recorder and how long to wait for a delivery."""

    sink: SinkView
    registry: SchemaRegistry
    advisory: Callable[[str], None]
    timeout: float


__all__ = [
    "SIGNATURE_CLAUSE",
    "check_event_envelopes",
    "event_data",
    "fail_wait",
    "listing",
    "mentions_anywhere",
    "names_resource",
]

SIGNATURE_CLAUSE = clauses.AUTHENTICATION + " — webhook signature"
SIGNATURE_REQUIREMENT = "WEBHOOK-SIGNATURE"


def check_event_envelopes(
    registry: SchemaRegistry, events: Iterable[Delivery], statement: str
) -> None:
    """Every event matches its envelope schema (``statement`` says which, for the message)."""
    __tracebackhide__ = True
    for delivery in events:
        body = delivery.json
        ref = contract.webhook_schema(body)
        problems = registry.violations(ref.name, body) if body is not None else []
        check(
            body is not None and not problems,
            ref.clause,
            statement,
            observed=[f"{p.path}: {p.message}" for p in problems] or delivery.body[:200],
            hint=delivery.summary(),
        )


def fail_wait(
    timeout: SinkTimeout,
    clause: str,
    statement: str,
    *,
    observed: object,
    hint: str,
    expected: object = _UNSET,
    requirement: str | None = None,
) -> NoReturn:
    """Fail a test whose wait for an event timed out.

    When what it awaited did arrive, but only with an X-Service-Signature that fails
    verification (set aside, so it counted for nothing), the failure names the signature
    rule and those deliveries; otherwise it is ``clause``'s: ``statement``, ``observed``,
    charged to the requirement of what the wait awaited (``SinkTimeout.awaited``) with one
    steady sentence as its cause, and recorded where the view says (``ran_out``) so that
    later waits for the same thing end at once with it; ``requirement`` names the one the
    assertion checks when the wait awaited nothing charged. A wait that was not made for
    that reason (:class:`NotAwaitedAgain`) fails with the earlier wait's failure.
    """
    __tracebackhide__ = True
    if isinstance(timeout, NotAwaitedAgain):
        raise timeout.again
    forged = timeout.matching_set_aside
    if forged:
        fail(
            SIGNATURE_CLAUSE,
            f"{statement}, signed: every delivery carries an X-Service-Signature that "
            "verifies with the service public key; what matched arrived only with one that "
            "does not, so it does not count",
            observed=_Plain(f"{len(forged)} matching deliveries set aside"),
            hint="set aside:\n"
            + listing([s.summary() for s in forged])
            + "\n  check that the profile's webhook public key is the target's "
            "(--webhook-public-key) and that the exact bytes signed are the bytes sent",
            requirement=SIGNATURE_REQUIREMENT,
        )
    shown: dict[str, Any] = {} if expected is _UNSET else {"expected": expected}
    failure = ConformanceFailure(
        clause, statement, observed=observed, hint=hint, requirement=requirement, **shown
    )
    awaited = timeout.awaited
    if awaited is not None:
        failure.charged_to, failure.owners = awaited.requirement, awaited.owners
        failure.cause = awaited.cause
        if timeout.ran_out is not None:
            timeout.ran_out.record(awaited.what, failure)
    raise failure


def listing(lines: Sequence[str], shown: int = 10) -> str:
    """``lines`` for a failure's hint, one per line, the first ``shown`` of them."""
    more = [f"... and {len(lines) - shown} more"] if len(lines) > shown else []
    return "\n".join(f"    {line}" for line in [*lines[:shown], *more])


class _Plain(str):
    """A string shown as it is in a failure message (no quotes)."""

    def __repr__(self) -> str:
        return str(self)


def event_data(delivery: Delivery) -> Any:
    """The envelope's ``data`` (``None`` when the body carries none)."""
    body = delivery.json
    return body.get("data") if isinstance(body, dict) else None


def names_resource(
    delivery: Delivery, resource_id: str, keys: Sequence[str], nested: Sequence[str]
) -> bool:
    """Whether ``data`` is the resource (``data.id``) or names it: ``data.<key>`` for one of
    ``keys`` or ``data.<name>.id`` for one of ``nested`` (the payload is not shown)."""
    data = event_data(delivery)
    if not isinstance(data, dict):
        return False
    named = [data.get("id"), *(data.get(key) for key in keys)]
    for name in nested:
        inner = data.get(name)
        if isinstance(inner, dict):
            named.append(inner.get("id"))
    return resource_id in named


def mentions_anywhere(delivery: Delivery, resource_id: str) -> bool:
    """Whether any string anywhere in ``data`` (nested objects and lists included) contains
    the resource's id: the last resort of correlating an event whose payload is not shown."""

    def search(value: object) -> bool:
        if isinstance(value, str):
            return resource_id in value
        if isinstance(value, dict):
            return any(search(item) for item in value.values())
        if isinstance(value, list):
            return any(search(item) for item in value)
        return False

    return bool(resource_id) and search(event_data(delivery))
