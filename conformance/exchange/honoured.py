"""The one check for an optional field sent with a value the interface allows: refused as
the interface says, or kept (``contract/optional_fields.py`` holds the fields).

A refusal is 400 ``INVALID_INPUT`` whose ``details.errors[]`` name the field (§7 Errors);
an acceptance is any 2xx, and then the value sent is on every record that shows the field.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from conformance.contract.error_bodies import field_errors, names_field
from conformance.contract.error_codes import carries_code
from conformance.contract.failures import check, fail
from conformance.contract.optional_fields import ABSENT, OptionalField, value_at
from conformance.exchange.client import ApiResponse
from conformance.exchange.evidence import Exchange

__all__ = ["assert_kept", "refused_or_accepted"]


def _refused_naming(response: ApiResponse, field: OptionalField) -> bool:
    body = response.json if response.status == 400 else None
    if not isinstance(body, dict) or not carries_code(body, "INVALID_INPUT"):
        return False
    return any(e.path is not None and names_field(e.path, field.path) for e in field_errors(body))


def refused_or_accepted(response: ApiResponse, field: OptionalField, value: Any) -> Any | None:
    """The record answered when the request was accepted; None when it was refused as the
    interface says; a failure naming the field's clause otherwise."""
    __tracebackhide__ = True
    if 200 <= response.status < 300:
        return response.json
    check(
        _refused_naming(response, field),
        field.clause,
        f"{field.operation} with {field.name}={value!r}, a value the interface allows, is "
        f"accepted, or refused with 400 INVALID_INPUT naming {field.name} in details.errors[]",
        expected=f"2xx, or 400 INVALID_INPUT naming {field.name}",
        observed=(response.status, response.content[:300]),
        hint=field.states,
        exchange=response.exchange,
    )
    return None


def assert_kept(
    field: OptionalField,
    value: Any,
    record: Any,
    where: str,
    *,
    required: bool = True,
    advisory: Callable[[str], None] | None = None,
    exchange: Exchange | None = None,
) -> None:
    """Fail unless ``record`` (``where`` it was read) carries ``value`` where the interface
    shows the field. Absent where it need not be (``required`` false) is an advisory."""
    __tracebackhide__ = True
    if field.shown_at is None:
        return
    got = value_at(record, field.shown_at)
    shown = ".".join(str(p) for p in field.shown_at)
    if got is ABSENT and not required:
        if advisory is not None:
            advisory(f"{field.clause}: {where} carries no {shown} after {field.name}={value!r}")
        return
    if got != value:
        fail(
            field.clause,
            f"{field.operation} accepted {field.name}={value!r}: {where} carries it as sent "
            f"in {shown}",
            expected=value,
            observed=got,
            hint=field.states,
            exchange=exchange,
        )
