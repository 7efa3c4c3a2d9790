"""The clauses failures name, one per section of the requirements catalogue.

A failure names the clause it breaks (``failures.py``); the text is the catalogue's
``section`` (``requirements.yaml``), never retyped: ``fail(clauses.ERRORS, ...)``, or with
the detail a check adds, ``clauses.QUOTES_ENDPOINTS + " — POST /quotes"``. Each name is
checked against the catalogue when this module is imported, so a section that the catalogue
renames or drops stops the suite at collection, and a misspelt name fails there too.
"""

from __future__ import annotations

from typing import Final

from conformance.contract.requirements import CatalogueError, default_catalogue

__all__ = [
    "ACCOUNTS_ENDPOINTS",
    "AUTHENTICATION",
    "BENEFICIAL_OWNER",
    "CARDS_AGENTS_SANDBOX_ENDPOINTS",
    "CARD_TRANSACTION",
    "CONTACT_VERIFICATION_STATES",
    "CONVENTIONS",
    "CUSTOMER",
    "CUSTOMERS_ENDPOINTS",
    "CUSTOMER_VERIFICATION_STATES",
    "DOCUMENT",
    "ERRORS",
    "EVENTS",
    "EXTERNAL_ACCOUNT",
    "EXTERNAL_ACCOUNT_STATES",
    "INTERNAL_ACCOUNT",
    "INTERNAL_ACCOUNT_STATES",
    "INVITATION_STATES",
    "LIMITS",
    "OTHER_RECORDS",
    "PLATFORM_CONFIG",
    "PLATFORM_CONFIGURATION_ENDPOINTS",
    "QUOTE",
    "QUOTES_ENDPOINTS",
    "QUOTE_AND_TRANSACTION_STATES",
    "SANDBOX_BEHAVIOURS",
    "TRANSACTION",
    "VERIFICATION",
    "VERSIONING",
    "WHAT_THE_SERVICE_DOES",
]

_SECTIONS: Final[frozenset[str]] = frozenset(r.section for r in default_catalogue())


def _section(part: int, heading: str) -> str:
    """``§<part> <heading>``, once the catalogue is known to cite it."""
    section = f"§{part} {heading}"
    if section not in _SECTIONS:
        raise CatalogueError(section, "no requirement of the catalogue cites this section")
    return section


# Part 0-1: conventions and the service
CONVENTIONS: Final = _section(0, "Conventions")
WHAT_THE_SERVICE_DOES: Final = _section(1, "What the service does")
# Part 2: resources and their fields
BENEFICIAL_OWNER: Final = _section(2, "BeneficialOwner")
CARD_TRANSACTION: Final = _section(2, "CardTransaction")
CUSTOMER: Final = _section(2, "Customer")
DOCUMENT: Final = _section(2, "Document (upload, multipart/form-data)")
EXTERNAL_ACCOUNT: Final = _section(2, "ExternalAccount")
INTERNAL_ACCOUNT: Final = _section(2, "InternalAccount")
OTHER_RECORDS: Final = _section(2, "Other records")
PLATFORM_CONFIG: Final = _section(2, "PlatformConfig")
QUOTE: Final = _section(2, "Quote")
TRANSACTION: Final = _section(2, "Transaction")
VERIFICATION: Final = _section(2, "Verification")
# Part 3: states and transitions
CONTACT_VERIFICATION_STATES: Final = _section(3, "Contact verification")
CUSTOMER_VERIFICATION_STATES: Final = _section(
    3, "Customer verification (`kycStatus` / `kybStatus`)"
)
EXTERNAL_ACCOUNT_STATES: Final = _section(3, "External account")
INTERNAL_ACCOUNT_STATES: Final = _section(3, "Internal account")
INVITATION_STATES: Final = _section(3, "Invitation")
QUOTE_AND_TRANSACTION_STATES: Final = _section(3, "Quote and transaction")
# Part 4: endpoints
ACCOUNTS_ENDPOINTS: Final = _section(4, "Accounts")
CARDS_AGENTS_SANDBOX_ENDPOINTS: Final = _section(4, "Cards, stablecoins, agents, auth, sandbox")
CUSTOMERS_ENDPOINTS: Final = _section(4, "Customers and verification")
PLATFORM_CONFIGURATION_ENDPOINTS: Final = _section(4, "Platform configuration")
QUOTES_ENDPOINTS: Final = _section(4, "Quotes and transactions")
SANDBOX_BEHAVIOURS: Final = _section(4, "Sandbox behaviours")
# Parts 5-9
AUTHENTICATION: Final = _section(5, "Authentication")
EVENTS: Final = _section(6, "Events")
ERRORS: Final = _section(7, "Errors")
LIMITS: Final = _section(8, "Limits")
VERSIONING: Final = _section(9, "Versioning")
