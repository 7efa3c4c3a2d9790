"""Which requirements an answer's shape belongs to: a defect in it is charged there once.

A test reads many answers on the way to the clause it is about (a quote it needs, the
configuration, a 401 it expects). When the schema check of an answer fails, the failure
belongs to the requirements of the record's own area (every ``CONFIG-*`` for the
PlatformConfig, and so on), not to the test that happened to read it
(``exchange/schema_check.py`` names them on the failure; ``reporting/causes.py`` fails a test
holding one of them, charged to it, and blocks any other). Those whose statement names the
broken member come first: the one charged when no test about the record met it. A schema
named here by no area stays the asking test's own failure, as before.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from types import MappingProxyType

from conformance.contract.requirements import default_catalogue

__all__ = ["SCHEMA_AREAS", "owners_of"]

_TRANSACTION = ("TRANSACTION-", "REFUND-")
# schema name -> the requirement ids (or id prefixes) of the record's area
SCHEMA_AREAS: Mapping[str, tuple[str, ...]] = MappingProxyType({
    "errors/error-401": ("AUTH-401-REASON",),
    "errors/error-400": ("ERROR-400-",),
    "platform-config": ("CONFIG-",),
    "customer": ("CUSTOMER-", "CONTACT-VERIFICATION-", "AGREEMENT-"),
    "verification": ("VERIFICATION-",),
    "external-account": ("EXTERNAL-ACCOUNT-",),
    "internal-account": (
        "INTERNAL-ACCOUNT-", "RULE-BASED-", "LIMIT-ACCOUNT-LABEL-", "LIMIT-RULE-BASED-",
    ),
    "quote": ("QUOTE-", "FUNDING-", "FEES-", "SCA-PAYMENT-", "LIMIT-QUOTE-", "LIMIT-REMITTANCE-"),
    "transaction": _TRANSACTION,
    "transaction-list-item": _TRANSACTION,
})  # fmt: skip


@functools.cache
def _area(schema: str) -> tuple[tuple[str, str], ...]:
    """(id, statement) of every requirement of the schema's area, in catalogue order."""
    prefixes = SCHEMA_AREAS.get(schema, ())
    return tuple(
        (r.id, r.statement)
        for r in default_catalogue()
        if any(r.id.startswith(prefix) for prefix in prefixes)
    )


def owners_of(schema: str, location: Sequence[str | int] = ()) -> tuple[str, ...]:
    """The requirements a violation of ``schema`` at ``location`` is charged to: those of
    the record's area whose statement names the member (the deepest one that any names)
    first, then the rest of the area; none for a schema of no area (the test's own)."""
    area = _area(schema)
    members = [str(part) for part in location if isinstance(part, str)]
    for member in reversed(members):
        named = tuple(rid for rid, statement in area if f"`{member}`" in statement)
        if named:
            return named + tuple(rid for rid, _ in area if rid not in named)
    return tuple(rid for rid, _ in area)
