"""Checks every delivered event must pass, whatever its family: envelope and signature."""

from __future__ import annotations

from collections.abc import Callable, Iterable

from conformance import contract
from conformance.failures import check
from conformance.schemas import SchemaRegistry
from conformance.sink import Delivery, SinkView

__all__ = ["SIGNATURE_CLAUSE", "check_event_envelopes", "check_event_signatures"]

SIGNATURE_CLAUSE = "§5 Authentication — webhook signature"


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


def check_event_signatures(
    sink: SinkView, advisory: Callable[[str], None], events: Iterable[Delivery]
) -> None:
    """Every event's X-Service-Signature verifies with the profile's webhook key."""
    __tracebackhide__ = True
    if sink.public_key is None:
        advisory("event signatures were not checked: the profile has no webhook key")
        return
    for delivery in events:
        result = sink.signature(delivery)
        header = (delivery.signature_header or "<absent>")[:60]
        check(
            result.valid,
            SIGNATURE_CLAUSE,
            "each delivery carries X-Service-Signature: a base64 signature over the "
            "SHA-256 of the exact body that verifies with the service public key",
            observed=f"{result.reason} (header {header!r})",
            hint=delivery.summary(),
        )
