"""Fault modes of the customers area (reference/customers/)."""

from __future__ import annotations

from reference.faults.legacy import legacy

legacy(
    "kyc-rejected-suffix-approved",
    breaks="an individual whose suffix must reject (e.g. 002) is approved instead",
    clause="§4 Sandbox behaviours: no suffix gives an approved customer",
    part="transitions",
    caught_by=("test_a_complete_submission_is_decided_by_the_suffix",),
)
legacy(
    "kyc-final-status-changed",
    breaks="POST /verifications on an APPROVED or REJECTED customer answers 200 and moves it to PENDING",
    clause="§3 Customer verification: final, response 400",
    part="transitions",
    caught_by=("test_a_final_status_survives_another_submission",),
)
legacy(
    "verification-missing-field-omitted",
    breaks="RESOLVE_ERRORS leaves out the error for a missing birthDate",
    clause="§4 Sandbox behaviours: complete packet; §2 Verification errors",
    part="transitions",
    caught_by=(
        "test_an_incomplete_submission_is_sent_back_whatever_the_suffix",
        "test_a_packet_lacking_one_part_is_sent_back_naming_it",
    ),
)
legacy(
    "kyc-events-out-of-order",
    breaks="a decision event's timestamp is earlier than its _PENDING event's",
    clause="§3 Customer verification: PENDING, then the decision",
    part="webhooks",
    caught_by=("test_customer_events_follow_the_state_machine",),
)
legacy(
    "rename-rederives-status",
    breaks="PATCH of fullName re-applies the suffix rules to a final customer",
    clause="§3 Customer verification: renaming does not re-derive the status",
    part="transitions",
    caught_by=("test_renaming_a_final_customer_does_not_re_derive_its_status",),
)
legacy(
    "consent-replaces-other-types",
    breaks="recording one agreement type drops the acceptances of the other types",
    clause="§4 Customers and verification: other types left untouched",
    part="endpoints",
    caught_by=("test_recording_one_type_leaves_the_other_types_untouched",),
)
legacy(
    "consents-both-accepted",
    breaks="a request with both endUserTermsConsent and agreementConsents is accepted",
    clause="§2 Customer, §7 Errors: rejected",
    part="errors",
    caught_by=(
        "test_both_consent_forms_on_create_are_refused",
        "test_both_consent_forms_on_update_are_refused_and_record_nothing",
    ),
)
legacy(
    "contact-not-required-accepted",
    breaks="verify-email/verify-phone for a channel the provider does not require answers 200",
    clause="§4 Customers and verification, §7 Errors: 409",
    part="errors",
    caught_by=("test_a_channel_the_provider_does_not_require_answers_409",),
)
legacy(
    "kyc-link-ignores-contact",
    breaks="a KYC link is issued while a contact channel is still PENDING",
    clause="§3 Contact verification: 409",
    part="errors",
    caught_by=("test_a_kyc_link_before_the_channels_are_verified_answers_409",),
)
legacy(
    "kyc-link-reused",
    breaks="every kyc-link call returns the customer's first kycUrl",
    clause="§4 Customers and verification: each call returns a fresh link",
    part="endpoints",
    caught_by=("test_each_call_returns_a_fresh_link",),
)
legacy(
    "document-any-type",
    breaks="uploads of any file type (e.g. text/plain) are accepted",
    clause="§2 Document, §8 Limits: PDF, JPEG or PNG",
    part="limits",
    caught_by=("test_files_of_other_media_types_are_refused",),
)
legacy(
    "document-quality-unchecked",
    breaks="photos under 320 pixels a side are accepted instead of 422 DOCUMENT_REJECTED",
    clause="§4 POST /documents, §7 Errors",
    part="errors",
    caught_by=("test_a_photo_without_corners_focus_or_colour_is_rejected",),
)
legacy(
    "tax-id-unchecked",
    breaks="businessInfo.taxId is not validated against businessInfo.country",
    clause="§2 Customer: taxId validated against country",
    part="resources",
    caught_by=("test_a_tax_id_that_fits_no_reading_of_the_us_format_is_refused",),
)
legacy(
    "regulated-suffix-ignored",
    breaks="on regulated or skip-paperwork platforms individuals stay UNVERIFIED at creation",
    clause="§4 Sandbox behaviours: the suffix resolves at creation",
    part="transitions",
    caught_by=("test_an_individual_starts_where_its_suffix_and_the_platform_mode_say",),
    run_args=("--regulated=true",),
)
legacy(
    "business-owner-rule-off",
    breaks="a business packet without any beneficial owner counts as complete",
    clause="§4 Sandbox behaviours, §8 Limits: beneficial owners declared",
    part="transitions",
    caught_by=("test_a_001_or_003_business_needs_documents_and_an_owner",),
)
