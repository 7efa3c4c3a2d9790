"""Fault modes of the customers area (reference/customers/)."""

from __future__ import annotations

import sqlite3
from collections.abc import Mapping
from dataclasses import replace
from datetime import timedelta
from typing import Any

from reference.customers import (
    agreements,
    api,
    contact_verification,
    documents,
    events,
    kyc_links,
    kyc_rules,
    packets,
    validation,
    verifications,
)
from reference.customers.documents import Upload
from reference.customers.store import APPROVED, PENDING, Customer
from reference.faults.registry import fault
from reference.kernel import routing
from reference.kernel.clock import iso, parse_iso
from reference.kernel.db import Database
from reference.kernel.settings import ServerSettings

# The media type stored for an upload that is neither declared nor recognised.
UNKNOWN_MEDIA_TYPE = "application/octet-stream"


@fault(
    "kyc-rejected-suffix-approved",
    at=kyc_rules.TERMINAL_STATUS,
    clause="§4 Sandbox behaviours: no suffix gives an approved customer",
    part="transitions",
    caught_by=("test_a_complete_submission_is_decided_by_the_suffix",),
)
def rejecting_suffix_approves(status: str, *, suffix: str | None) -> str:
    """an individual whose suffix must reject (e.g. 002) is approved instead"""
    return APPROVED


@fault(
    "kyc-final-status-changed",
    at=verifications.FINAL_RESUBMITTED,
    clause="§3 Customer verification: final, response 400",
    part="transitions",
    caught_by=("test_a_final_status_survives_another_submission",),
)
def final_status_moves_to_pending(status: str | None, *, customer: Customer) -> str | None:
    """POST /verifications on an APPROVED or REJECTED customer answers 200 and moves it to
    PENDING"""
    return PENDING


@fault(
    "verification-missing-field-omitted",
    at=packets.PACKET_ERRORS,
    clause="§4 Sandbox behaviours: complete packet; §2 Verification errors",
    part="transitions",
    caught_by=(
        "test_an_incomplete_submission_is_sent_back_whatever_the_suffix",
        "test_a_packet_lacking_one_part_is_sent_back_naming_it",
    ),
)
def missing_birth_date_omitted(
    errors: list[dict[str, Any]], *, customer: Customer
) -> list[dict[str, Any]]:
    """RESOLVE_ERRORS leaves out the error for a missing birthDate"""
    return [
        error
        for error in errors
        if not (error["type"] == packets.MISSING_FIELD and error["field"].endswith("birthDate"))
    ]


@fault(
    "kyc-events-out-of-order",
    at=events.NEXT_STAMP,
    clause="§3 Customer verification: PENDING, then the decision",
    part="transitions",
    caught_by=("test_customer_events_follow_the_state_machine",),
)
def decision_stamped_before_pending(stamp: str, *, previous: str) -> str:
    """a decision event's timestamp is earlier than its _PENDING event's"""
    return iso(parse_iso(previous) - timedelta(milliseconds=1))


@fault(
    "rename-rederives-status",
    at=api.RENAMED,
    clause="§3 Customer verification: renaming does not re-derive the status",
    part="transitions",
    caught_by=("test_renaming_a_final_customer_does_not_re_derive_its_status",),
)
def rename_rederives_status(customer: Customer, *, settings: ServerSettings) -> Customer:
    """PATCH of fullName re-applies the suffix rules to a final customer"""
    if not customer.is_final:
        return customer
    suffix = kyc_rules.suffix_of(customer.fields["fullName"])
    status = kyc_rules.individual_resolved(suffix, settings)
    return replace(customer, suffix=suffix, status=status)


@fault(
    "consent-replaces-other-types",
    at=agreements.RECORDED,
    clause="§4 Customers and verification: other types left untouched",
    part="endpoints",
    caught_by=("test_recording_one_type_leaves_the_other_types_untouched",),
)
def consent_replaces_other_types(
    recorded: dict[str, dict[str, Any]],
    *,
    stored: Mapping[str, dict[str, Any]],
    entries: list[dict[str, Any]],
) -> dict[str, dict[str, Any]]:
    """recording one agreement type drops the acceptances of the other types"""
    return {entry["type"]: entry for entry in entries}


@fault(
    "consents-both-accepted",
    at=agreements.BOTH_FORMS_REFUSED,
    clause="§2 Customer, §7 Errors: rejected",
    part="errors",
    caught_by=(
        "test_both_consent_forms_on_create_are_refused",
        "test_both_consent_forms_on_update_are_refused_and_record_nothing",
    ),
)
def both_consent_forms_accepted(refused: bool) -> bool:
    """a request with both endUserTermsConsent and agreementConsents is accepted"""
    return False


@fault(
    "contact-not-required-accepted",
    at=contact_verification.CODE_CHANNEL_REQUIRED,
    clause="§4 Customers and verification, §7 Errors: 409",
    part="errors",
    caught_by=("test_a_channel_the_provider_does_not_require_answers_409",),
)
def every_channel_required(required: bool, *, customer: Customer, channel: str) -> bool:
    """verify-email/verify-phone for a channel the provider does not require answers 200"""
    return True


@fault(
    "kyc-link-ignores-contact",
    at=kyc_links.LINK_PENDING_CHANNELS,
    clause="§3 Contact verification: 409",
    part="errors",
    caught_by=("test_a_kyc_link_before_the_channels_are_verified_answers_409",),
)
def link_ignores_contact(pending: list[str], *, customer: Customer) -> list[str]:
    """a KYC link is issued while a contact channel is still PENDING"""
    return []


@fault(
    "kyc-link-reused",
    at=kyc_links.ANSWERED_LINK,
    clause="§4 Customers and verification: each call returns a fresh link",
    part="endpoints",
    caught_by=("test_each_call_returns_a_fresh_link",),
)
def first_link_reused(
    link: sqlite3.Row | None, *, db: Database, customer: Customer
) -> sqlite3.Row | None:
    """every kyc-link call returns the customer's first kycUrl"""
    first = db.fetchone(
        "SELECT * FROM kyc_links WHERE customer_id = ? ORDER BY seq LIMIT 1", (customer.id,)
    )
    return first if first is not None else link


@fault(
    "document-any-type",
    at=documents.ACCEPTED_MEDIA_TYPE,
    clause="§2 Document, §8 Limits: PDF, JPEG or PNG",
    part="limits",
    caught_by=("test_files_of_other_media_types_are_refused",),
)
def any_media_type_accepted(
    accepted: str | None, *, upload: Upload, sniffed: str | None
) -> str | None:
    """uploads of any file type (e.g. text/plain) are accepted"""
    return upload.declared_type or sniffed or UNKNOWN_MEDIA_TYPE


@fault(
    "document-quality-unchecked",
    at=documents.PHOTO_PASSES_QUALITY,
    clause="§4 POST /documents, §7 Errors",
    part="errors",
    caught_by=("test_a_photo_without_corners_focus_or_colour_is_rejected",),
)
def every_photo_passes(passes: bool, *, size: tuple[int, int]) -> bool:
    """photos under 320 pixels a side are accepted instead of 422 DOCUMENT_REJECTED"""
    return True


@fault(
    "tax-id-unchecked",
    at=validation.TAX_ID_PROBLEM,
    clause="§2 Customer: taxId validated against country",
    part="resources",
    caught_by=("test_a_tax_id_that_fits_no_reading_of_the_us_format_is_refused",),
)
def tax_id_unchecked(problem: str | None, *, country: str, tax_id: str) -> str | None:
    """businessInfo.taxId is not validated against businessInfo.country"""
    return None


@fault(
    "regulated-suffix-ignored",
    at=kyc_rules.CAPTURED_STATUS,
    clause="§4 Sandbox behaviours: the suffix resolves at creation",
    part="transitions",
    caught_by=("test_an_individual_starts_where_its_suffix_and_the_platform_mode_say",),
    run_args=("--regulated=true",),
)
def suffix_ignored_at_creation(status: str, *, before: str, suffix: str) -> str:
    """on regulated or skip-paperwork platforms individuals stay UNVERIFIED at creation"""
    return before


@fault(
    "business-owner-rule-off",
    at=packets.PACKET_ERRORS,
    clause="§4 Sandbox behaviours, §8 Limits: beneficial owners declared",
    part="transitions",
    caught_by=("test_a_001_or_003_business_needs_documents_and_an_owner",),
)
def owners_not_required(
    errors: list[dict[str, Any]], *, customer: Customer
) -> list[dict[str, Any]]:
    """a business packet without any beneficial owner counts as complete"""
    return [
        error
        for error in errors
        if not (
            error["type"] == packets.MISSING_FIELD
            and error["resourceId"] == customer.id
            and error["field"] == packets.OWNERS_FIELD
        )
    ]


# The optional due-diligence fields of §2 Customer that the interface names.
DUE_DILIGENCE = ("purposeOfAccount", "sourceOfFunds")


@fault(
    "customer-due-diligence-ignored",
    at=routing.REQUEST_BODY,
    clause="§2 Customer: purposeOfAccount, sourceOfFunds (optional due-diligence fields)",
    part="endpoints",
    caught_by=("test_an_optional_field_sent_is_refused_as_stated_or_kept",),
)
def due_diligence_ignored(body: dict[str, Any], *, method: str, path: str) -> dict[str, Any]:
    """POST /customers and PATCH /customers/{customerId} accept purposeOfAccount and
    sourceOfFunds but keep neither"""
    if (method, path) not in (("POST", "/customers"), ("PATCH", "/customers/{customerId}")):
        return body
    return {k: v for k, v in body.items() if k not in DUE_DILIGENCE}


@fault(
    "patch-answer-drops-consents",
    at=api.PATCH_ANSWER,
    clause="§2 Customer: responses hold the latest acceptance per type",
    part="endpoints",
    caught_by=("test_recording_one_type_leaves_the_other_types_untouched",),
)
def answer_only_the_consents_sent(
    body: dict[str, Any], *, sent: Mapping[str, Any]
) -> dict[str, Any]:
    """PATCH /customers/{customerId} answers only the acceptances its request carried,
    dropping those already on file that the next GET still shows"""
    sent_types = {
        entry.get("type")
        for entry in sent.get("agreementConsents") or ()
        if isinstance(entry, dict)
    }
    kept = [c for c in body.get("agreementConsents") or () if c.get("type") in sent_types]
    return {**body, "agreementConsents": kept}


@fault(
    "contact-verified-on-resend",
    at=contact_verification.CODE_SENT,
    clause="§3 Contact verification: VERIFIED after send then confirm",
    part="transitions",
    caught_by=("test_confirming_the_code_sent_verifies_the_channel",),
)
def verify_on_the_second_send(customer: Customer, *, channel: str, resent: bool) -> Customer:
    """a code sent again for a channel verifies it, before any confirm"""
    if not resent:
        return customer
    if channel == "email":
        return replace(customer, email_verified=True)
    return replace(customer, phone_verified=True)
