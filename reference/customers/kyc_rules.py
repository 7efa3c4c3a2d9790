"""The sandbox suffix rules (§4 Sandbox behaviours; SANDBOX.md, "Verification and the
sandbox suffixes"): pure functions from a suffix and the platform mode to a status.

The suffix is the last three characters of an individual's ``fullName`` or a business's
``businessInfo.registrationNumber``, read once, when the value is first known.
"""

from __future__ import annotations

from typing import Any

from reference.customers.store import (
    APPROVED,
    BUSINESS,
    INDIVIDUAL,
    PENDING,
    REJECTED,
    UNVERIFIED,
)
from reference.kernel.seams import seam
from reference.kernel.settings import ServerSettings

MANUAL_REVIEW = "001"  # submittable; a complete packet goes to manual review
REJECT = "002"
APPROVE = "003"  # submittable; a complete packet is approved (our choice)
SUBMITTABLE = frozenset({MANUAL_REVIEW, APPROVE})

TERMINAL_STATUS = seam(
    "customers.individual_terminal_status",
    "the status an individual's terminal suffix resolves to: REJECTED for 002, else APPROVED"
    " (context: suffix)",
)
CAPTURED_STATUS = seam(
    "customers.status_on_capture",
    "the status an individual resolves to when its suffix is read on a regulated or"
    " skip-paperwork platform (context: before, the UNVERIFIED status it had; suffix)",
)


def suffix_source(customer_type: str, fields: dict[str, Any]) -> str | None:
    """The value the suffix is read from, if the customer has it yet."""
    if customer_type == INDIVIDUAL:
        value = fields.get("fullName")
    else:
        value = (fields.get("businessInfo") or {}).get("registrationNumber")
    return value if isinstance(value, str) and value else None


def suffix_of(value: str) -> str:
    """The last three characters."""
    return value[-3:]


def resolves_early(settings: ServerSettings) -> bool:
    """Regulated platforms and "Skip verification paperwork" resolve suffixes without a
    packet: individuals at creation, businesses with a final suffix on submission."""
    return settings.regulated or settings.skip_verification_paperwork


def individual_terminal(suffix: str | None, settings: ServerSettings) -> str:
    """The outcome of an individual's terminal suffix: ``002`` rejects; a name without a
    scenario suffix is approved ("no suffix gives an approved customer", read as for
    businesses; see SANDBOX.md)."""
    status = REJECTED if suffix == REJECT else APPROVED
    return settings.seams.apply(TERMINAL_STATUS, status, suffix=suffix)


def individual_resolved(suffix: str, settings: ServerSettings) -> str:
    """An individual's status where suffixes resolve at creation: ``001``/``003`` stay
    submittable as ``PENDING``, anything else is terminal."""
    return PENDING if suffix in SUBMITTABLE else individual_terminal(suffix, settings)


def status_on_capture(
    customer_type: str, status: str, suffix: str, settings: ServerSettings
) -> str:
    """The status once the suffix is first read (at creation, or when the name first
    arrives): individuals resolve here on regulated or skip-paperwork platforms."""
    if customer_type != INDIVIDUAL or status != UNVERIFIED or not resolves_early(settings):
        return status
    resolved = individual_resolved(suffix, settings)
    return settings.seams.apply(CAPTURED_STATUS, resolved, before=status, suffix=suffix)


def early_business_decision(suffix: str | None, settings: ServerSettings) -> str | None:
    """On regulated or skip-paperwork platforms a business's final suffix resolves on
    submission before the packet is validated; None when the packet decides."""
    if not resolves_early(settings) or suffix is None or suffix in SUBMITTABLE:
        return None
    return REJECTED if suffix == REJECT else APPROVED


def decision(customer_type: str, suffix: str | None, settings: ServerSettings) -> str:
    """The status after a complete submission."""
    if suffix == MANUAL_REVIEW:
        return PENDING
    if suffix == APPROVE:
        return APPROVED
    if customer_type == BUSINESS:
        return REJECTED if suffix == REJECT else APPROVED
    return individual_terminal(suffix, settings)


def owner_status(last_name: str | None) -> str:
    """A beneficial owner's outcome when the business resolves terminally (our choice:
    ``002`` rejects, anything else approves)."""
    return REJECTED if last_name and suffix_of(last_name) == REJECT else APPROVED
