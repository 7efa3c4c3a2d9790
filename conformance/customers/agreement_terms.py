"""The agreements a target supports (§4 Customers and verification — GET /customers/agreements).

The end-user terms type carries the service's brand (``<SERVICE>_END_USER_TERMS``), so the
suite finds it as the listed type ending in ``_END_USER_TERMS``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import pytest

from conformance.contract import clauses
from conformance.contract import endpoint_schemas as contract
from conformance.exchange.assertions import required_json
from conformance.exchange.client import TargetClient

__all__ = ["Agreement", "consent_of", "end_user_terms", "supported_agreements"]

END_USER_TERMS_SUFFIX = "_END_USER_TERMS"


@dataclass(frozen=True, slots=True)
class Agreement:
    """One supported agreement: its type, current version and hosted url."""

    type: str
    version: str
    url: str


def supported_agreements(client: TargetClient) -> list[Agreement]:
    """GET /customers/agreements, as a list (the client has checked each entry's shape)."""
    __tracebackhide__ = True
    response = client.get("/customers/agreements")
    listed = required_json(
        response,
        clauses.CUSTOMERS_ENDPOINTS + " — GET /customers/agreements",
        "GET /customers/agreements lists the supported agreements",
        status=200,
    )
    items = contract.list_items(listed) or []
    return [
        Agreement(str(i["type"]), str(i["version"]), str(i["url"]))
        for i in items
        if isinstance(i, Mapping)
    ]


def end_user_terms(agreements: Sequence[Agreement]) -> Agreement:
    """The ``<SERVICE>_END_USER_TERMS`` agreement; skips when the target lists none."""
    found = [a for a in agreements if a.type.endswith(END_USER_TERMS_SUFFIX)]
    if not found:
        pytest.skip(
            "GET /customers/agreements lists no type ending in _END_USER_TERMS "
            f"(listed: {[a.type for a in agreements]})"
        )
    return found[0]


def consent_of(customer: Mapping[str, Any], agreement_type: str) -> dict[str, Any] | None:
    """The customer's recorded ``agreementConsents`` entry of a type, or None."""
    entries = customer.get("agreementConsents")
    for entry in entries if isinstance(entries, list) else []:
        if isinstance(entry, dict) and entry.get("type") == agreement_type:
            return entry
    return None
