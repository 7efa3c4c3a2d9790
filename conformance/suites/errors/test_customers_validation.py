"""§7 Errors — 400 INVALID_INPUT on POST and PATCH /customers, every invalid field at once.

Generated bodies break the rules §2 Customer and §4 state: ``customerType`` required and
``INDIVIDUAL`` or ``BUSINESS``; dates ``YYYY-MM-DD``; country codes; ``businessInfo`` with
``legalName``, ``country`` (ISO 3166-1 alpha-2), ``taxId`` (validated against the country)
and ``incorporatedOn`` for businesses; not both consent forms in one request.
"""

from __future__ import annotations

import pytest
from hypothesis import given

from conformance.contract import clauses
from conformance.contract.error_bodies import field_errors, names_field
from conformance.contract.error_codes import carries_code
from conformance.contract.failures import check
from conformance.customers.agreement_terms import end_user_terms, supported_agreements
from conformance.customers.bodies import CONSENT_PATHS, individual_body, invalid_customers
from conformance.exchange.assertions import assert_invalid_input

pytestmark = [pytest.mark.resource("Customer"), pytest.mark.writes]

CLAUSE = clauses.ERRORS


def assert_refused(response, case):
    """400; INVALID_INPUT naming every broken field (a consent clash may name either form)."""
    __tracebackhide__ = True
    if case.invalid:
        assert_invalid_input(response, list(case.invalid))
    else:
        check(
            response.status == 400,
            CLAUSE,
            "a request with both endUserTermsConsent and agreementConsents answers 400",
            expected=400,
            observed=response.status,
            exchange=response.exchange,
        )
    if case.both_consents and carries_code(response.json, "INVALID_INPUT"):
        named = [e.path for e in field_errors(response.json) if e.path]
        check(
            any(names_field(n, p) for n in named for p in CONSENT_PATHS),
            CLAUSE,
            "validation errors list every invalid field: the consent clash names "
            "endUserTermsConsent or agreementConsents",
            observed=named,
            exchange=response.exchange,
        )


@pytest.mark.requirement(
    "ERROR-400-ALL-FIELDS",
    "CUSTOMER-CREATE-TYPE-REQUIRED",
    "CUSTOMER-CREATE-BUSINESS-INFO-REQUIRED",
    "CUSTOMER-BUSINESS-COUNTRY-ALPHA2",
    "CUSTOMER-BUSINESS-TAX-ID-VALIDATED",
    "AGREEMENT-BOTH-CONSENT-FORMS-400",
)
def test_generated_invalid_customers_are_refused_naming_every_invalid_field(client):
    terms = end_user_terms(supported_agreements(client))

    @given(case=invalid_customers((terms.type, terms.version)))
    def refused(case):
        assert_refused(client.post("/customers", json=case.body), case)

    refused()


@pytest.mark.requirement("ERROR-400-ALL-FIELDS", "CUSTOMER-INDIVIDUAL-FIELDS")
def test_an_invalid_patch_is_refused_naming_its_fields_and_changes_nothing(onboarding, client):
    customer = onboarding.create(individual_body("001"))
    patch = {"birthDate": "31/01/1990", "nationality": "Narnia", "fullName": "Ada Patched001"}
    response = client.patch(f"/customers/{customer['id']}", json=patch)
    assert_invalid_input(response, [("birthDate",), ("nationality",)])
    after = onboarding.get(customer["id"])
    check(
        {k: after.get(k) for k in patch} == {k: customer.get(k) for k in patch},
        CLAUSE,
        "a refused PATCH /customers/{customerId} changes nothing",
        expected={k: customer.get(k) for k in patch},
        observed={k: after.get(k) for k in patch},
    )
