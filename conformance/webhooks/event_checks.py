"""Checks every delivered event must pass, whatever its family: envelope and signature; and
how the suite tells which resource an event is about when its payload is not shown."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from conformance.contract import endpoint_schemas as contract
from conformance.contract.failures import check
from conformance.contract.schemas import SchemaRegistry
from conformance.webhooks.sink import Delivery, SinkView


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
    "check_event_signatures",
    "event_data",
    "mentions_anywhere",
    "names_resource",
]

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
