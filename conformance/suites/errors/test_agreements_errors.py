"""§7 Errors — both ``endUserTermsConsent`` and ``agreementConsents`` in one request: 400."""

from __future__ import annotations

import pytest

from conformance.contract import clauses
from conformance.contract.failures import check
from conformance.customers.agreement_terms import end_user_terms, supported_agreements
from conformance.customers.bodies import consent_entry, individual_body
from conformance.exchange.assertions import assert_status

pytestmark = [pytest.mark.resource("Customer"), pytest.mark.writes]

STATEMENT = "a request with both endUserTermsConsent and agreementConsents answers 400"


def both_forms(terms):
    return {
        "endUserTermsConsent": consent_entry(None, terms.version),
        "agreementConsents": [consent_entry(terms.type, terms.version)],
    }


@pytest.mark.requirement("AGREEMENT-BOTH-CONSENT-FORMS-400")
def test_both_consent_forms_on_create_are_refused(client):
    terms = end_user_terms(supported_agreements(client))
    response = client.post("/customers", json={**individual_body("001"), **both_forms(terms)})
    assert_status(response, 400, clauses.ERRORS, STATEMENT)


@pytest.mark.requirement("AGREEMENT-BOTH-CONSENT-FORMS-400")
def test_both_consent_forms_on_update_are_refused_and_record_nothing(onboarding, client):
    terms = end_user_terms(supported_agreements(client))
    customer = onboarding.create(individual_body("001"))
    response = onboarding.patch(customer["id"], both_forms(terms))
    assert_status(response, 400, clauses.ERRORS, STATEMENT)
    check(
        onboarding.get(customer["id"]).get("agreementConsents") in ([], None),
        clauses.ERRORS,
        "a refused request records no acceptance",
        observed=onboarding.get(customer["id"]).get("agreementConsents"),
    )
