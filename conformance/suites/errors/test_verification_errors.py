"""§7 Errors — 400 for POST /verifications on a customer already APPROVED or REJECTED."""

from __future__ import annotations

import pytest

from conformance.contract import clauses
from conformance.customers.verification_checks import a_final_customer
from conformance.exchange.assertions import assert_status

pytestmark = [pytest.mark.resource("Verification"), pytest.mark.writes]


@pytest.mark.requirement("VERIFICATION-FINAL-400")
@pytest.mark.parametrize(
    ("kind", "suffix"),
    [("INDIVIDUAL", "002"), ("BUSINESS", "002"), ("BUSINESS", "004")],
    ids=["rejected-individual", "rejected-business", "approved-business"],
)
def test_a_submission_for_a_final_customer_answers_400(onboarding, kind, suffix):
    customer = a_final_customer(onboarding, kind, suffix)
    assert_status(
        onboarding.submit(customer["id"]),
        400,
        clauses.ERRORS,
        "POST /verifications on a customer already APPROVED or REJECTED answers 400",
    )
