"""§2 Verification — id, customerId, verificationStatus, errors and createdAt."""

from __future__ import annotations

import re

import pytest

from conformance.contract import clauses
from conformance.contract.failures import check
from conformance.customers.verification_checks import assert_names_missing, individual_packet_parts

pytestmark = [pytest.mark.resource("Verification"), pytest.mark.writes]

CLAUSE = clauses.VERIFICATION
UUID = r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}"
NAMED_STATUSES = {"RESOLVE_ERRORS", "IN_PROGRESS", "PENDING_MANUAL_REVIEW"}


@pytest.mark.requirement("VERIFICATION-FIELDS", "VERIFICATION-STATUS-VALUES", "COMMON-ID-FORMAT")
def test_a_verification_carries_its_id_customer_and_creation_time(onboarding, advisory):
    customer = onboarding.individual("001")
    onboarding.add_identity_document(customer["id"])
    verification = onboarding.submit(customer["id"]).json  # the client checks the schema
    check(
        re.fullmatch(rf"Verification:{UUID}", str(verification.get("id"))),
        clauses.CONVENTIONS,
        "record identifiers have the form Verification:<uuid>",
        observed=verification.get("id"),
        requirement="COMMON-ID-FORMAT",
    )
    check(
        verification.get("customerId") == customer["id"]
        and isinstance(verification.get("createdAt"), str),
        CLAUSE,
        "a verification carries the customerId it concerns and its createdAt",
        observed={k: verification.get(k) for k in ("customerId", "createdAt")},
        requirement="VERIFICATION-FIELDS",
    )
    if verification.get("verificationStatus") not in NAMED_STATUSES:
        advisory(
            f"verificationStatus {verification.get('verificationStatus')!r} is not one of "
            "the named values; others may exist"
        )


@pytest.mark.requirement("VERIFICATION-ERRORS-SHAPE", "VERIFICATION-ERROR-DETAILS")
def test_errors_name_the_missing_field_or_the_accepted_documents(onboarding):
    customer = onboarding.individual("001", complete=False)
    response = onboarding.submit(customer["id"])  # each error checked against the schema
    assert_names_missing(response, list(individual_packet_parts(customer["id"]).values()))
    for error in response.json.get("errors") or []:
        if error.get("type") == "MISSING_IDENTITY_DOCUMENT":
            check(
                set(error.get("acceptedDocumentTypes") or ())
                & {"PASSPORT", "DRIVERS_LICENSE", "NATIONAL_ID"},
                CLAUSE,
                "a missing identity document lists the identity document types that satisfy it",
                observed=error,
                requirement="VERIFICATION-ERROR-DETAILS",
            )


@pytest.mark.requirement("VERIFICATION-ERRORS-SHAPE")
def test_errors_about_a_beneficial_owner_name_the_owner(onboarding, client):
    business = onboarding.business("001")
    body = onboarding.owner_body(business["id"])
    del body["personalInfo"]["birthDate"]
    owner = client.post("/beneficial-owners", json=body)
    owner_id = owner.json.get("id") if owner.status in (200, 201) else None
    response = onboarding.submit(business["id"])
    holders = {e.get("resourceId") for e in response.json.get("errors") or []}
    check(
        holders <= {business["id"], owner_id},
        CLAUSE,
        "each error's resourceId is the customer or one of its beneficial owners",
        expected=sorted(filter(None, {business["id"], owner_id})),
        observed=sorted(map(str, holders)),
        exchange=response.exchange,
    )
