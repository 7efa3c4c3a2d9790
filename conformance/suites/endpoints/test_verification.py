"""§4 Customers and verification — POST /verifications and GET /verifications?customerId=."""

from __future__ import annotations

import pytest

from conformance.contract import clauses
from conformance.contract.failures import check
from conformance.customers.verification_outcomes import INCOMPLETE, INDIVIDUAL, expected
from conformance.exchange.assertions import required_json

pytestmark = [pytest.mark.resource("Verification"), pytest.mark.writes]

CLAUSE = clauses.CUSTOMERS_ENDPOINTS


@pytest.mark.requirement("VERIFICATION-SUBMIT")
def test_post_verifications_returns_a_verification_for_the_customer(onboarding):
    customer = onboarding.individual("001", complete=False)
    response = onboarding.submit(customer["id"])
    statement = "POST /verifications {customerId} returns a Verification for that customer"
    verification = required_json(
        response, CLAUSE + " — POST /verifications", statement, status=(200, 201)
    )
    check(
        verification.get("customerId") == customer["id"],
        CLAUSE + " — POST /verifications",
        statement,
        expected=customer["id"],
        observed=(response.status, response.field("customerId")),
        exchange=response.exchange,
    )


@pytest.mark.requirement("VERIFICATION-GET-BY-CUSTOMER")
def test_get_verifications_by_customer_returns_its_verification(onboarding):
    customer = onboarding.individual("001", complete=False)
    submitted = onboarding.submit(customer["id"]).json
    response = onboarding.latest_verification(customer["id"])
    found = required_json(
        response,
        CLAUSE + " — GET /verifications",
        "GET /verifications?customerId=<id> returns the customer's verification",
        status=200,
    )
    check(
        found.get("customerId") == customer["id"]
        and found.get("verificationStatus") == submitted.get("verificationStatus")
        and isinstance(found.get("errors"), list),
        CLAUSE + " — GET /verifications",
        "the verification read back carries the customer, its verificationStatus and errors",
        expected={
            "customerId": customer["id"],
            "verificationStatus": submitted.get("verificationStatus"),
            "errors": "[...]",
        },
        observed={k: found.get(k) for k in ("customerId", "verificationStatus", "errors")},
        exchange=response.exchange,
    )


@pytest.mark.requirement("CUSTOMER-FULL-NAME-TWO-PARTS")
def test_a_single_word_full_name_is_refused_at_submission(onboarding, profile):
    customer = onboarding.individual("001", fullName="Lovelace001")
    onboarding.add_identity_document(customer["id"])
    before = onboarding.status(customer["id"])
    response = onboarding.submit(customer["id"])
    refused = response.status in (400, 409, 422) or (
        response.status in (200, 201)
        and response.json.get("verificationStatus") == "RESOLVE_ERRORS"
        and any("fullName" in str(e.get("field")) for e in response.json.get("errors") or [])
    )
    check(
        refused,
        clauses.CUSTOMER,
        "a single-word fullName is rejected at verification submission",
        expected="400, 409 or 422, or RESOLVE_ERRORS with an error on fullName",
        observed=(response.status, response.content[:300]),
        exchange=response.exchange,
    )
    after = onboarding.status(customer["id"])
    check(
        after == before and expected(INDIVIDUAL, profile, INCOMPLETE, "001").allows_status(after),
        clauses.CUSTOMER,
        "a customer whose fullName is refused does not advance",
        expected=before,
        observed=after,
    )
