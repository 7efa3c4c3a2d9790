"""Assertions about customers as the target returns them (§2 Customer, §4 Customers).

A field reads back "as sent" when the returned value equals the sent one; objects are
compared on the keys that were sent (the target may add keys it owns), and lists of plain
values as collections (the interface gives them no order).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from conformance.contract.error_bodies import FieldPath
from conformance.contract.failures import fail
from conformance.contract.schemas import format_path
from conformance.exchange.evidence import Exchange

__all__ = ["assert_reads_back", "differences", "provider_requirements"]


def differences(sent: Any, got: Any, path: FieldPath = ()) -> list[tuple[FieldPath, Any, Any]]:
    """Every ``(path, sent, got)`` where ``got`` does not carry what was ``sent``."""
    if isinstance(sent, Mapping):
        if not isinstance(got, Mapping):
            return [(path, sent, got)]
        found: list[tuple[FieldPath, Any, Any]] = []
        for key, value in sent.items():
            found.extend(differences(value, got.get(key), (*path, key)))
        return found
    if isinstance(sent, list) and all(not isinstance(v, dict | list) for v in sent):
        same = isinstance(got, list) and sorted(map(repr, sent)) == sorted(map(repr, got))
        return [] if same else [(path, sent, got)]
    return [] if sent == got else [(path, sent, got)]


def assert_reads_back(
    sent: Mapping[str, Any],
    customer: Mapping[str, Any],
    clause: str,
    statement: str,
    exchange: Exchange | None = None,
) -> None:
    """Fail unless every sent field reads back as sent."""
    __tracebackhide__ = True
    found = differences(dict(sent), customer)
    if found:
        fail(
            clause,
            statement,
            expected={format_path(p): s for p, s, _ in found},
            observed={format_path(p): g for p, _, g in found},
            exchange=exchange,
        )


def provider_requirements(config: Mapping[str, Any]) -> dict[str, list[str]]:
    """Currency code -> ``providerRequiredCustomerFields`` of a PlatformConfig."""
    entries = config.get("supportedCurrencies")
    result: dict[str, list[str]] = {}
    for entry in entries if isinstance(entries, list) else []:
        if isinstance(entry, dict) and isinstance(entry.get("currencyCode"), str):
            needs = entry.get("providerRequiredCustomerFields") or []
            result[entry["currencyCode"]] = [n for n in needs if isinstance(n, str)]
    return result
