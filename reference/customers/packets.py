"""Verification packet completeness (§2 Verification ``errors``; SANDBOX.md,
"Verification and the sandbox suffixes"): one error per missing field or document.

An empty list means the packet is complete. ``resourceId`` names the customer or the
beneficial owner the missing item belongs to.
"""

from __future__ import annotations

from typing import Any

from reference.customers.documents import IDENTITY_TYPES, TWO_SIDED, documents_of
from reference.customers.owners import CONTROL_ROLES, owners_of
from reference.customers.store import Customer
from reference.kernel.db import Database
from reference.kernel.seams import seam
from reference.kernel.settings import ServerSettings

_INDIVIDUAL_FIELDS = ("birthDate", "nationality", "idType", "identifier", "address")
_BUSINESS_FIELDS = ("legalName", "country", "taxId", "incorporatedOn", "registrationNumber")
_OWNER_FIELDS = (
    "firstName",
    "lastName",
    "birthDate",
    "nationality",
    "address",
    "idType",
    "identifier",
)
CERTIFICATE = "CERTIFICATE_OF_INCORPORATION"
MISSING_FIELD = "MISSING_FIELD"
OWNERS_FIELD = "beneficialOwners"

PACKET_ERRORS = seam(
    "customers.packet_errors",
    "the Verification errors[] of a customer's packet, empty when it is complete"
    " (context: customer)",
)


class _Errors:
    """Collects the errors of one packet."""

    def __init__(self) -> None:
        self.items: list[dict[str, Any]] = []

    def field(self, resource_id: str, field: str, reason: str = "is required") -> None:
        self.items.append(
            {"resourceId": resource_id, "type": MISSING_FIELD, "field": field, "reason": reason}
        )

    def document(self, resource_id: str, accepted: list[str], reason: str) -> None:
        self.items.append(
            {
                "resourceId": resource_id,
                "type": "MISSING_IDENTITY_DOCUMENT",
                "acceptedDocumentTypes": accepted,
                "reason": reason,
            }
        )


def has_identity_document(documents: set[tuple[str, str | None]]) -> bool:
    """A passport, or both sides of one driver's licence or national id."""
    if any(kind == "PASSPORT" for kind, _ in documents):
        return True
    return any({(kind, "FRONT"), (kind, "BACK")} <= documents for kind in TWO_SIDED)


def _identity(errors: _Errors, db: Database, holder_id: str) -> None:
    if not has_identity_document(documents_of(db, holder_id)):
        errors.document(
            holder_id,
            list(IDENTITY_TYPES),
            "a passport, or both sides of a driver's licence or national id, is required",
        )


def packet_errors(
    db: Database, customer: Customer, settings: ServerSettings
) -> list[dict[str, Any]]:
    """What the customer's packet lacks."""
    errors = _Errors()
    if customer.is_individual:
        _individual(errors, db, customer)
    else:
        _business(errors, db, customer)
    return settings.seams.apply(PACKET_ERRORS, errors.items, customer=customer)


def _individual(errors: _Errors, db: Database, customer: Customer) -> None:
    fields = customer.fields
    name = fields.get("fullName")
    if not name:
        errors.field(customer.id, "fullName")
    elif len(name.split()) < 2:
        errors.field(customer.id, "fullName", "must contain a given and a family name")
    for key in _INDIVIDUAL_FIELDS:
        if not fields.get(key):
            errors.field(customer.id, key)
    _identity(errors, db, customer.id)


def _business(errors: _Errors, db: Database, customer: Customer) -> None:
    info = customer.fields.get("businessInfo") or {}
    for key in _BUSINESS_FIELDS:
        if not info.get(key):
            errors.field(customer.id, f"businessInfo.{key}")
    if not any(kind == CERTIFICATE for kind, _ in documents_of(db, customer.id)):
        errors.document(customer.id, [CERTIFICATE], "a certificate of incorporation is required")
    owners = owners_of(db, customer.id)
    if not owners:
        errors.field(customer.id, OWNERS_FIELD, "at least one beneficial owner")
        return
    if not any(CONTROL_ROLES.intersection(owner.roles) for owner in owners):
        errors.field(
            customer.id,
            "beneficialOwners.roles",
            "one beneficial owner must be a DIRECTOR or CONTROL_PERSON",
        )
    for owner in owners:
        for key in _OWNER_FIELDS:
            if not owner.personal_info.get(key):
                errors.field(owner.id, f"personalInfo.{key}")
        _identity(errors, db, owner.id)
