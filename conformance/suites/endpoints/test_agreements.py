"""§4 Customers and verification — GET /customers/agreements and recording consent.

``agreementConsents`` on create or update adds acceptances and leaves those of other types
untouched; accepting one agreement never implies another; at most one entry per type in a
request.
"""

from __future__ import annotations

import pytest

from conformance.contract import clauses
from conformance.contract.failures import check
from conformance.customers.agreement_terms import consent_of, supported_agreements
from conformance.customers.bodies import consent_entry, individual_body
from conformance.exchange.assertions import assert_status

pytestmark = [pytest.mark.resource("Customer")]

CLAUSE = clauses.CUSTOMERS_ENDPOINTS


def recorded_types(customer):
    return sorted(e.get("type") for e in customer.get("agreementConsents") or [])


@pytest.mark.requirement("AGREEMENTS-LIST")
def test_the_supported_agreements_are_listed_with_version_and_url(client):
    agreements = supported_agreements(client)  # each entry checked against the schema
    check(
        any(a.type.endswith("_END_USER_TERMS") for a in agreements),
        CLAUSE,
        "GET /customers/agreements lists the supported agreements, the end-user terms "
        "(<SERVICE>_END_USER_TERMS) among them",
        observed=[a.type for a in agreements],
    )


@pytest.mark.writes
@pytest.mark.requirement("AGREEMENT-VERSION-AS-TERMS-VERSION")
def test_each_current_version_is_accepted_as_terms_version(onboarding, client):
    agreements = supported_agreements(client)
    consents = [consent_entry(a.type, a.version) for a in agreements]
    customer = onboarding.create({**individual_body("001"), "agreementConsents": consents})
    read = onboarding.get(customer["id"])
    for agreement in agreements:
        entry = consent_of(read, agreement.type) or {}
        check(
            entry.get("termsVersion") == agreement.version,
            CLAUSE,
            f"the current version of {agreement.type} is accepted as termsVersion and recorded",
            expected=agreement.version,
            observed=entry or read.get("agreementConsents"),
        )


def two_agreement_types(client):
    agreements = supported_agreements(client)
    if len(agreements) < 2:
        pytest.skip(f"the target lists one agreement type ({[a.type for a in agreements]})")
    return agreements[0], agreements[1]


@pytest.mark.writes
@pytest.mark.requirement("AGREEMENT-CONSENT-ADDITIVE")
def test_recording_one_type_leaves_the_other_types_untouched(onboarding, client):
    first, second = two_agreement_types(client)
    accepted = consent_entry(first.type, first.version, minutes_ago=20)
    customer = onboarding.create({**individual_body("001"), "agreementConsents": [accepted]})
    response = onboarding.patch(
        customer["id"], {"agreementConsents": [consent_entry(second.type, second.version)]}
    )
    assert_status(response, 200, CLAUSE, "PATCH /customers/{customerId} records an acceptance")
    read = onboarding.get(customer["id"])
    check(
        consent_of(read, first.type) is not None and consent_of(read, second.type) is not None,
        CLAUSE,
        "agreementConsents on update adds acceptances and leaves those of other types untouched",
        expected=sorted([first.type, second.type]),
        observed=recorded_types(read),
    )


@pytest.mark.writes
@pytest.mark.requirement("AGREEMENT-CONSENT-NO-IMPLICATION")
def test_accepting_one_agreement_records_no_other(onboarding, client):
    first, _ = two_agreement_types(client)
    body = {
        **individual_body("001"),
        "agreementConsents": [consent_entry(first.type, first.version)],
    }
    customer = onboarding.create(body)
    check(
        recorded_types(onboarding.get(customer["id"])) == [first.type],
        CLAUSE,
        "accepting one agreement never implies another",
        expected=[first.type],
        observed=recorded_types(onboarding.get(customer["id"])),
    )


@pytest.mark.writes
@pytest.mark.requirement("AGREEMENT-CONSENT-ONE-PER-TYPE")
def test_two_entries_of_one_type_in_a_request_are_refused(client):
    agreement = supported_agreements(client)[0]
    twice = [
        consent_entry(agreement.type, agreement.version, minutes_ago=10),
        consent_entry(agreement.type, agreement.version, minutes_ago=5),
    ]
    response = client.post(
        "/customers", json={**individual_body("001"), "agreementConsents": twice}
    )
    assert_status(
        response,
        400,
        clauses.CUSTOMER,
        "a request holds at most one agreementConsents entry per type",
    )
