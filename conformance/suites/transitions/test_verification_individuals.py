"""§3 Customer verification and §4 Sandbox behaviours — individual KYC, per suffix and mode.

The last 3 characters of ``fullName`` choose the sandbox scenario. Unregulated platforms
resolve it on a complete ``POST /verifications``; regulated platforms, or Skip verification
paperwork on, resolve it at creation. The expected outcome of every suffix, stage and mode is
data in ``conformance.customers.verification_outcomes``.
"""

from __future__ import annotations

import pytest

from conformance.contract import clauses
from conformance.customers.bodies import individual_body
from conformance.customers.verification_checks import (
    assert_customer_status,
    assert_names_missing,
    events_for,
    individual_packet_parts,
    submit_and_check,
)
from conformance.customers.verification_outcomes import (
    COMPLETE,
    CREATION,
    INCOMPLETE,
    INDIVIDUAL,
    SUFFIXES,
    expected,
)

pytestmark = [pytest.mark.resource("Customer"), pytest.mark.writes]

SUFFIX_IDS = [s or "no-suffix" for s in SUFFIXES]


@pytest.mark.requirement(
    "SANDBOX-KYC-UNREGULATED-WAITS-FOR-SUBMISSION",
    "SANDBOX-KYC-RESOLVES-AT-CREATION",
    "SANDBOX-KYC-001-003-SUBMITTABLE",
    "SANDBOX-KYC-002-REJECTED",
    "SANDBOX-KYC-OTHER-SUFFIX-APPROVED",
)
@pytest.mark.parametrize("suffix", SUFFIXES, ids=SUFFIX_IDS)
def test_an_individual_starts_where_its_suffix_and_the_platform_mode_say(
    onboarding, profile, advisory, suffix
):
    outcome = expected(INDIVIDUAL, profile, CREATION, suffix)
    customer = onboarding.individual(suffix, complete=False)
    status = customer.get("kycStatus")
    if not outcome.allows_status(status):  # a decision may follow the answer
        status = onboarding.settled_status(customer["id"], outcome)
    assert_customer_status(status, outcome, f"kycStatus of a new individual ({suffix!r})", advisory)
    if suffix not in ("001", "002", "003") and status in ("APPROVED", "REJECTED"):
        advisory(f"{clauses.SANDBOX_BEHAVIOURS}: a terminal suffix {suffix!r} resolved as {status}")


@pytest.mark.requirement(
    "SANDBOX-KYC-SUFFIX-ONLY-WHEN-COMPLETE",
    "SANDBOX-KYC-001-003-COMPLETE-PACKET",
    "VERIFICATION-RESOLVE-ERRORS",
    "VERIFICATION-FINAL-STATUS-UNCHANGED",
)
@pytest.mark.parametrize("suffix", SUFFIXES, ids=SUFFIX_IDS)
def test_an_incomplete_submission_is_sent_back_whatever_the_suffix(
    onboarding, profile, advisory, suffix
):
    outcome = expected(INDIVIDUAL, profile, INCOMPLETE, suffix)
    customer = onboarding.individual(suffix, complete=False)
    response, _ = submit_and_check(
        onboarding, customer, outcome, "an incomplete submission", advisory
    )
    if not outcome.refused:
        assert_names_missing(response, list(individual_packet_parts(customer["id"]).values()))


@pytest.mark.requirement("SANDBOX-KYC-001-003-COMPLETE-PACKET", "VERIFICATION-RESOLVE-ERRORS")
@pytest.mark.parametrize(
    "part", ["birthDate", "nationality", "identification", "address", "document"]
)
@pytest.mark.parametrize("suffix", ["001", "003"])
def test_a_packet_lacking_one_part_is_sent_back_naming_it(
    onboarding, profile, advisory, suffix, part
):
    outcome = expected(INDIVIDUAL, profile, INCOMPLETE, suffix)
    leave_out = {"identification": ("idType", "identifier", "countryOfIssuance")}.get(part, (part,))
    customer = onboarding.create(
        {k: v for k, v in individual_body(suffix).items() if k not in leave_out}
    )
    if part != "document":
        onboarding.add_identity_document(customer["id"])
    response, _ = submit_and_check(
        onboarding, customer, outcome, f"a submission without {part}", advisory
    )
    assert_names_missing(response, [individual_packet_parts(customer["id"])[part]])


@pytest.mark.requirement(
    "KYC-SUBMISSION-PENDING",
    "KYC-APPROVED",
    "KYC-REJECTED",
    "SANDBOX-KYC-002-REJECTED",
    "SANDBOX-KYC-OTHER-SUFFIX-APPROVED",
    "VERIFICATION-SANDBOX-001-MANUAL-REVIEW",
    "WEBHOOK-CUSTOMER-EVENT-FAMILY",
)
@pytest.mark.parametrize("suffix", SUFFIXES, ids=SUFFIX_IDS)
def test_a_complete_submission_is_decided_by_the_suffix(
    onboarding, profile, customer_events, advisory, suffix
):
    outcome = expected(INDIVIDUAL, profile, COMPLETE, suffix)
    customer = onboarding.individual(suffix)
    if not outcome.refused:
        onboarding.add_identity_document(customer["id"])
    _, status = submit_and_check(onboarding, customer, outcome, "a complete submission", advisory)
    customer_events.expect(
        customer,
        events_for(outcome, status),
        why=f"a complete submission of an individual ending in {suffix!r} ({status})",
    )


@pytest.mark.requirement(
    "VERIFICATION-RESUBMIT-AFTER-FIX", "VERIFICATION-SANDBOX-001-MANUAL-REVIEW"
)
def test_fixing_the_errors_and_resubmitting_advances_the_verification(
    onboarding, profile, advisory
):
    customer = onboarding.individual("001", complete=False)
    first = onboarding.submit(customer["id"])
    assert_names_missing(first, list(individual_packet_parts(customer["id"]).values()))
    onboarding.complete_packet(customer)
    submit_and_check(
        onboarding,
        customer,
        expected(INDIVIDUAL, profile, COMPLETE, "001"),
        "a resubmission with the packet completed",
        advisory,
    )
