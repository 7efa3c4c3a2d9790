"""§2 Resources and their fields — Customer, as POST and GET /customers return it.

The client checks every response against the Customer schema (both shapes); these tests
check what a schema cannot: that the fields come back as sent, and the rules on
``businessInfo``.
"""

from __future__ import annotations

import re

import pytest

from conformance.contract import clauses
from conformance.contract.failures import check
from conformance.customers.bodies import business_body, individual_body
from conformance.customers.checks import assert_reads_back
from conformance.exchange.assertions import assert_invalid_input

pytestmark = [pytest.mark.resource("Customer"), pytest.mark.writes]

CLAUSE = clauses.CUSTOMER
UUID = r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}"
STATUSES = {"UNVERIFIED", "PENDING", "APPROVED", "REJECTED", "HOLD"}


@pytest.mark.requirement(
    "CUSTOMER-TYPE-VALUES",
    "CUSTOMER-PLATFORM-CUSTOMER-ID",
    "CUSTOMER-INDIVIDUAL-FIELDS",
    "CUSTOMER-CONTACT-ADDRESS-FIELDS",
    "CUSTOMER-ID-VOCABULARY-SHARED",
    "CUSTOMER-STATUS-VALUES",
    "COMMON-ID-FORMAT",
)
def test_an_individual_comes_back_with_the_fields_sent(onboarding):
    body = {
        **individual_body("001"),
        "email": "ada.lovelace@example.com",
        "phoneNumber": "+12125550142",
        "address": {
            "line1": "1 Specimen Street",
            "line2": "Unit 4",
            "city": "Springfield",
            "state": "CA",
            "postalCode": "94016",
            "country": "US",
        },
    }
    customer = onboarding.create(body)
    check(
        re.fullmatch(rf"Customer:{UUID}", str(customer.get("id"))),
        clauses.CONVENTIONS,
        "record identifiers have the form Customer:<uuid>",
        observed=customer.get("id"),
        requirement="COMMON-ID-FORMAT",
    )
    read = onboarding.get(customer["id"])
    assert_reads_back(body, read, CLAUSE, "an individual is returned with the fields it was given")
    check(
        read.get("kycStatus") in STATUSES,
        CLAUSE,
        "an individual carries kycStatus, one of UNVERIFIED, PENDING, APPROVED, REJECTED, HOLD",
        observed=read.get("kycStatus"),
        requirement="CUSTOMER-STATUS-VALUES",
    )


@pytest.mark.requirement(
    "CUSTOMER-BUSINESS-INFO-FIELDS", "CUSTOMER-TYPE-VALUES", "CUSTOMER-STATUS-VALUES"
)
def test_a_business_comes_back_with_its_business_info(onboarding):
    body = business_body("004")
    body["businessInfo"]["countriesOfOperation"] = ["US", "CA"]
    customer = onboarding.create(body)
    read = onboarding.get(customer["id"])
    assert_reads_back(body, read, CLAUSE, "a business is returned with its businessInfo as given")
    check(
        read.get("kybStatus") in STATUSES,
        CLAUSE,
        "a business carries kybStatus, one of UNVERIFIED, PENDING, APPROVED, REJECTED, HOLD",
        observed=read.get("kybStatus"),
    )


@pytest.mark.requirement("CUSTOMER-DUE-DILIGENCE-OPTIONAL")
@pytest.mark.parametrize("kind", ["INDIVIDUAL", "BUSINESS"])
def test_the_due_diligence_fields_are_optional(onboarding, kind):
    body = business_body() if kind == "BUSINESS" else individual_body("001")
    for name in ("purposeOfAccount", "sourceOfFunds"):
        assert name not in body
    onboarding.create(body)  # fails naming the clause if refused


@pytest.mark.requirement("CUSTOMER-BUSINESS-COUNTRY-ALPHA2")
@pytest.mark.parametrize("country", ["USA", "U1", "12", "United States"])
def test_the_business_country_is_an_alpha_2_code(client, country):
    body = business_body()
    body["businessInfo"]["country"] = country
    response = client.post("/customers", json=body)
    assert_invalid_input(response, [("businessInfo", "country")], CLAUSE)


@pytest.mark.requirement("CUSTOMER-BUSINESS-TAX-ID-VALIDATED")
@pytest.mark.parametrize("tax_id", ["ABCDEFGHI", "---------", "12-ABCDEFG", "12"])
def test_a_tax_id_that_fits_no_reading_of_the_us_format_is_refused(client, tax_id):
    body = business_body()
    body["businessInfo"].update(country="US", taxId=tax_id)
    response = client.post("/customers", json=body)
    assert_invalid_input(response, [("businessInfo", "taxId")], CLAUSE)


@pytest.mark.requirement("CUSTOMER-BUSINESS-TAX-ID-VALIDATED")
@pytest.mark.parametrize("tax_id", ["12-3456789", "45-1234567"])
def test_a_us_employer_identification_number_is_accepted(onboarding, tax_id):
    body = business_body()
    body["businessInfo"].update(country="US", taxId=tax_id)
    customer = onboarding.create(body)
    check(
        customer["businessInfo"].get("taxId") == tax_id,
        CLAUSE,
        "a valid taxId is kept as sent",
        expected=tax_id,
        observed=customer["businessInfo"].get("taxId"),
    )
