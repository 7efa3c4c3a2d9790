"""§9 Versioning — the deprecated end-user terms endpoint and consent object keep working."""

from __future__ import annotations

import pytest

from conformance.contract import clauses
from conformance.contract.failures import check
from conformance.customers.agreement_terms import consent_of, end_user_terms, supported_agreements
from conformance.customers.bodies import consent_entry, individual_body
from conformance.exchange.assertions import assert_status, required_json

pytestmark = [pytest.mark.resource("Customer")]

CLAUSE = clauses.VERSIONING


@pytest.mark.requirement("VERSION-DEPRECATED-END-USER-TERMS-GET")
def test_get_end_user_terms_keeps_working(client, advisory):
    response = client.get("/customers/end-user-terms")  # checked against {version, url}
    terms = required_json(
        response, CLAUSE, "GET /customers/end-user-terms keeps working", status=200
    )
    listed = end_user_terms(supported_agreements(client))
    if terms.get("version") != listed.version:
        advisory(
            f"GET /customers/end-user-terms gives version {terms.get('version')!r}, "
            f"GET /customers/agreements {listed.version!r} for {listed.type}"
        )


@pytest.mark.writes
@pytest.mark.requirement("VERSION-DEPRECATED-END-USER-TERMS-CONSENT")
@pytest.mark.parametrize("when", ["create", "update"])
def test_end_user_terms_consent_keeps_working(onboarding, client, when):
    terms = end_user_terms(supported_agreements(client))
    consent = consent_entry(None, terms.version)
    if when == "create":
        customer = onboarding.create({**individual_body("001"), "endUserTermsConsent": consent})
    else:
        customer = onboarding.create(individual_body("001"))
        response = onboarding.patch(customer["id"], {"endUserTermsConsent": consent})
        assert_status(
            response,
            200,
            CLAUSE,
            "PATCH /customers/{customerId} with endUserTermsConsent keeps working",
        )
    read = onboarding.get(customer["id"])
    check(
        consent_of(read, terms.type) is not None,
        CLAUSE,
        f"endUserTermsConsent on {when} keeps working: the end-user terms acceptance is on file",
        observed=read.get("agreementConsents"),
    )
