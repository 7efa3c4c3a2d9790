"""§2 Resources and their fields — Customer.agreementConsents and endUserTermsConsent.

Responses hold the latest acceptance per type, and an empty list until the first one; the
deprecated ``endUserTermsConsent`` is one entry of the ``<SERVICE>_END_USER_TERMS`` type.
"""

from __future__ import annotations

import pytest

from conformance.contract import clauses
from conformance.contract.failures import check
from conformance.customers.agreement_terms import consent_of, end_user_terms, supported_agreements
from conformance.customers.bodies import consent_entry, individual_body
from conformance.ground.timestamps import parse_timestamp

pytestmark = [pytest.mark.resource("Customer"), pytest.mark.writes]

CLAUSE = clauses.CUSTOMER


def same_acceptance(recorded, sent):
    """Whether a recorded entry carries the sent acceptance (timestamps compared as instants)."""
    if not isinstance(recorded, dict):
        return False
    for key, value in sent.items():
        if key == "acceptedAt":
            if parse_timestamp(recorded.get(key)) != parse_timestamp(value):
                return False
        elif recorded.get(key) != value:
            return False
    return True


@pytest.mark.requirement("AGREEMENT-CONSENT-EMPTY-INITIALLY")
def test_a_customer_without_acceptances_has_an_empty_list(onboarding):
    customer = onboarding.create(individual_body("001"))
    for where, shown in (("created", customer), ("read back", onboarding.get(customer["id"]))):
        check(
            shown.get("agreementConsents") == [],
            CLAUSE,
            f"agreementConsents is an empty list until the first acceptance ({where})",
            expected=[],
            observed=shown.get("agreementConsents", "<absent>"),
        )


@pytest.mark.requirement("AGREEMENT-CONSENT-ENTRY-FIELDS")
def test_a_recorded_acceptance_carries_type_time_address_version_and_method(onboarding, client):
    terms = end_user_terms(supported_agreements(client))
    sent = consent_entry(terms.type, terms.version, ip="2001:db8::7")
    customer = onboarding.create({**individual_body("001"), "agreementConsents": [sent]})
    recorded = consent_of(onboarding.get(customer["id"]), terms.type)
    check(
        same_acceptance(recorded, sent),
        CLAUSE,
        "an agreementConsents entry carries type, acceptedAt, ipAddress, termsVersion and "
        "acceptanceMethod as accepted",
        expected=sent,
        observed=recorded,
    )


@pytest.mark.requirement("AGREEMENT-CONSENT-LATEST-PER-TYPE")
def test_accepting_a_type_again_keeps_only_the_latest_acceptance(onboarding, client):
    terms = end_user_terms(supported_agreements(client))
    first = consent_entry(terms.type, terms.version, minutes_ago=30, ip="203.0.113.7")
    latest = consent_entry(terms.type, terms.version, minutes_ago=1, ip="203.0.113.99")
    customer = onboarding.create({**individual_body("001"), "agreementConsents": [first]})
    response = onboarding.patch(customer["id"], {"agreementConsents": [latest]})
    check(
        response.status == 200,
        clauses.CUSTOMERS_ENDPOINTS,
        "PATCH /customers/{customerId} records a new acceptance",
        observed=response.status,
        exchange=response.exchange,
    )
    entries = [
        e
        for e in onboarding.get(customer["id"]).get("agreementConsents") or []
        if isinstance(e, dict) and e.get("type") == terms.type
    ]
    check(
        len(entries) == 1 and same_acceptance(entries[0], latest),
        CLAUSE,
        "responses hold the latest acceptance per type: one entry, the later one",
        expected=[latest],
        observed=entries,
    )


@pytest.mark.requirement("AGREEMENT-END-USER-TERMS-CONSENT-EQUIVALENT")
def test_end_user_terms_consent_is_one_entry_of_the_end_user_terms_type(onboarding, client):
    terms = end_user_terms(supported_agreements(client))
    sent = consent_entry(None, terms.version)
    customer = onboarding.create({**individual_body("001"), "endUserTermsConsent": sent})
    recorded = consent_of(onboarding.get(customer["id"]), terms.type)
    check(
        same_acceptance(recorded, sent),
        CLAUSE,
        f"endUserTermsConsent is equivalent to one agreementConsents entry of type {terms.type}",
        expected={"type": terms.type, **sent},
        observed=recorded,
    )
