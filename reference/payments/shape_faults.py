"""Fault modes that break the shape of a money resource as answered (§2 Resources and
their fields), so the suite's schema checks are proven to fail a broken server.

Each applies to one answer per resource, the one the resources part reads: the quote
``POST /quotes`` creates, the transactions ``GET /transactions`` lists, the internal
accounts ``GET /customers/internal-accounts`` lists and the external account ``POST
/customers/external-accounts`` creates. Without its fault each function returns the body
unchanged.
"""

from __future__ import annotations

from typing import Any

from reference.server.settings import ServerSettings

TRANSACTION_PREFIX = "Transaction:"
BAD_EXTERNAL_STATUS = "VERIFIED_ACTIVE"


def quote(settings: ServerSettings, body: dict[str, Any]) -> dict[str, Any]:
    """`quote-amount-as-string`: ``totalSendingAmount`` as a string."""
    if settings.has_fault("quote-amount-as-string"):
        return {**body, "totalSendingAmount": str(body.get("totalSendingAmount"))}
    return body


def transaction(settings: ServerSettings, body: dict[str, Any]) -> dict[str, Any]:
    """`transaction-id-unprefixed`: ``id`` without ``Transaction:``."""
    if settings.has_fault("transaction-id-unprefixed"):
        return {**body, "id": str(body.get("id", "")).removeprefix(TRANSACTION_PREFIX)}
    return body


def internal_account(settings: ServerSettings, body: dict[str, Any]) -> dict[str, Any]:
    """`internal-account-balance-missing`: no ``availableBalance``;
    `wallet-privacy-flag-everywhere`: ``privateEnabled`` on every account type;
    `internal-account-card-capabilities-missing`: no ``cardCapabilities``."""
    if settings.has_fault("internal-account-balance-missing"):
        return {k: v for k, v in body.items() if k != "availableBalance"}
    if settings.has_fault("internal-account-card-capabilities-missing"):
        return {k: v for k, v in body.items() if k != "cardCapabilities"}
    if settings.has_fault("wallet-privacy-flag-everywhere"):
        return {"privateEnabled": False, **body}
    return body


def external_account(settings: ServerSettings, body: dict[str, Any]) -> dict[str, Any]:
    """`external-account-bad-status`: ``status`` outside the three values."""
    if settings.has_fault("external-account-bad-status"):
        return {**body, "status": BAD_EXTERNAL_STATUS}
    return body
