"""Which requirements an answer's shape belongs to: a defect in it is charged there once.

A test reads many answers on the way to the clause it is about (a quote it needs, the
configuration, a 401 it expects). When the schema check of an answer fails, the failure
belongs to the requirements that state that record's shape, not to the test that happened
to read it (``exchange/schema_check.py`` names them on the failure; ``reporting/causes.py``
fails a test holding one of them and blocks any other). A schema named here by none of its
requirements stays the asking test's own failure, as before.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

__all__ = ["SCHEMA_OWNERS", "owners_of"]

# schema name -> the requirements stating its shape, the one charged by default first
SCHEMA_OWNERS: Mapping[str, tuple[str, ...]] = MappingProxyType({
    "errors/error-401": ("AUTH-401-REASON",),
    "errors/error-400": ("ERROR-400-ENVELOPE", "ERROR-400-INVALID-INPUT"),
    "platform-config": (
        "CONFIG-RESOURCE-FIELDS", "CONFIG-FEE-CONFIGS-SHAPE", "CONFIG-COUNTERPARTY-FIELDS",
        "CONFIG-CURRENCY-CODE-ISO4217", "CONFIG-CURRENCY-AMOUNTS-REQUIRED",
    ),
    "external-account": (
        "EXTERNAL-ACCOUNT-FIELDS", "EXTERNAL-ACCOUNT-STATUS-VALUES", "EXTERNAL-ACCOUNT-INFO-SHAPE",
    ),
    "internal-account": (
        "INTERNAL-ACCOUNT-FIELDS", "INTERNAL-ACCOUNT-TYPE-VALUES", "INTERNAL-ACCOUNT-STATUS-VALUES",
        "INTERNAL-ACCOUNT-CURRENCY-ISO4217", "INTERNAL-ACCOUNT-BALANCES",
    ),
    "quote": (
        "QUOTE-STATUS-VALUES", "QUOTE-TIMESTAMPS", "QUOTE-SOURCE-DESTINATION-SHAPE",
        "QUOTE-AMOUNT-FIELDS", "QUOTE-FEE-FIELDS",
    ),
    "transaction": (
        "TRANSACTION-STATUS-VALUES", "TRANSACTION-REFERENCE-FIELDS",
        "TRANSACTION-OUTGOING-DIRECTION", "TRANSACTION-FAILURE-REASON-ONLY-FAILED",
        "TRANSACTION-SOURCE-DESTINATION", "TRANSACTION-AMOUNT-OBJECTS",
    ),
    "transaction-list-item": (
        "TRANSACTION-STATUS-VALUES", "TRANSACTION-REFERENCE-FIELDS",
        "TRANSACTION-OUTGOING-DIRECTION", "TRANSACTION-FAILURE-REASON-ONLY-FAILED",
    ),
    "verification": ("VERIFICATION-FIELDS", "VERIFICATION-STATUS-VALUES"),
})  # fmt: skip


def owners_of(schema: str) -> tuple[str, ...]:
    """The requirements a violation of ``schema`` is charged to (none: the test's own)."""
    return SCHEMA_OWNERS.get(schema, ())
