"""§3 Customer verification and §4 Sandbox behaviours — business KYB, per suffix and mode.

The last 3 characters of ``businessInfo.registrationNumber`` decide the outcome on the first
complete submission. Businesses are created ``UNVERIFIED`` in every mode; unregulated
platforms validate the packet first for every suffix, while regulated platforms (or Skip
verification paperwork on) resolve a final suffix before validating the packet.
"""

from __future__ import annotations

import pytest

from conformance.customers.verification_checks import (
    assert_customer_status,
    events_for,
    submit_and_check,
)
from conformance.customers.verification_outcomes import (
    BUSINESS,
    COMPLETE,
    CREATION,
    INCOMPLETE,
    SUFFIXES,
    expected,
)

pytestmark = [pytest.mark.resource("Customer"), pytest.mark.writes]

SUFFIX_IDS = [s or "no-suffix" for s in SUFFIXES]


@pytest.mark.requirement("SANDBOX-KYB-UNVERIFIED-AT-CREATION")
@pytest.mark.parametrize("suffix", SUFFIXES, ids=SUFFIX_IDS)
def test_a_business_is_created_unverified_in_every_mode(onboarding, profile, advisory, suffix):
    outcome = expected(BUSINESS, profile, CREATION, suffix)
    customer = onboarding.business(suffix)
    assert_customer_status(
        customer.get("kybStatus"), outcome, f"kybStatus of a new business ({suffix!r})", advisory
    )
    assert_customer_status(
        onboarding.status(customer["id"]),
        outcome,
        f"kybStatus of a new business ({suffix!r}), read back",
        advisory,
    )


@pytest.mark.requirement(
    "SANDBOX-KYB-UNREGULATED-VALIDATES-PACKET",
    "SANDBOX-KYB-FINAL-SUFFIX-SKIPS-PACKET",
    "SANDBOX-KYB-001-003-NEED-PACKET",
    "SANDBOX-KYB-002-REJECTED",
    "SANDBOX-KYB-AUTO-APPROVE",
    "VERIFICATION-RESOLVE-ERRORS",
)
@pytest.mark.parametrize("suffix", SUFFIXES, ids=SUFFIX_IDS)
def test_a_business_submitted_without_documents_or_owners(
    onboarding, profile, customer_events, advisory, suffix
):
    outcome = expected(BUSINESS, profile, INCOMPLETE, suffix)
    customer = onboarding.business(suffix)
    _, status = submit_and_check(
        onboarding, customer, outcome, "a submission without documents or owners", advisory
    )
    customer_events.expect(
        customer,
        events_for(outcome, status),
        why=f"a final registration suffix {suffix!r} resolving before packet validation",
    )


@pytest.mark.requirement("SANDBOX-KYB-001-003-NEED-PACKET", "VERIFICATION-RESOLVE-ERRORS")
@pytest.mark.parametrize("missing", ["beneficial owner", "business document"])
@pytest.mark.parametrize("suffix", ["001", "003"])
def test_a_001_or_003_business_needs_documents_and_an_owner(
    onboarding, profile, advisory, suffix, missing
):
    outcome = expected(BUSINESS, profile, INCOMPLETE, suffix)
    customer = onboarding.business(suffix)
    onboarding.complete_packet(
        customer, owner=missing != "beneficial owner", documents=missing != "business document"
    )
    submit_and_check(onboarding, customer, outcome, f"a submission without a {missing}", advisory)


@pytest.mark.requirement(
    "KYB-SUBMISSION-PENDING",
    "KYB-APPROVED",
    "KYB-REJECTED",
    "SANDBOX-KYB-SUFFIX-FIRST-COMPLETE-SUBMISSION",
    "SANDBOX-KYB-AUTO-APPROVE",
    "SANDBOX-KYB-002-REJECTED",
    "WEBHOOK-CUSTOMER-EVENT-FAMILY",
)
@pytest.mark.parametrize("suffix", SUFFIXES, ids=SUFFIX_IDS)
def test_a_complete_business_submission_is_decided_by_the_suffix(
    onboarding, profile, customer_events, advisory, suffix
):
    outcome = expected(BUSINESS, profile, COMPLETE, suffix)
    customer = onboarding.business(suffix)
    onboarding.complete_packet(customer)
    _, status = submit_and_check(onboarding, customer, outcome, "a complete submission", advisory)
    customer_events.expect(
        customer,
        events_for(outcome, status),
        why=f"a complete submission of a business numbered ...{suffix or 'AX'} ({status})",
    )


@pytest.mark.requirement("VERIFICATION-RESUBMIT-AFTER-FIX", "SANDBOX-KYB-001-003-NEED-PACKET")
def test_a_business_resubmitted_with_its_packet_completed_advances(onboarding, profile, advisory):
    customer = onboarding.business("001")
    incomplete = expected(BUSINESS, profile, INCOMPLETE, "001")
    submit_and_check(onboarding, customer, incomplete, "an empty submission", advisory)
    onboarding.complete_packet(customer)
    complete = expected(BUSINESS, profile, COMPLETE, "001")
    submit_and_check(
        onboarding, customer, complete, "a resubmission with the packet completed", advisory
    )
