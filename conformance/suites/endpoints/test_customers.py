"""§4 Customers and verification — POST, GET and PATCH /customers."""

from __future__ import annotations

import pytest
from hypothesis import given

from conformance.contract import clauses
from conformance.contract.failures import check
from conformance.customers.bodies import (
    business_body,
    individual_body,
    valid_businesses,
    valid_customer_patches,
    valid_individuals,
)
from conformance.customers.checks import assert_reads_back, provider_requirements
from conformance.exchange.assertions import assert_invalid_input, required_json

pytestmark = [pytest.mark.resource("Customer"), pytest.mark.writes]

CLAUSE = clauses.CUSTOMERS_ENDPOINTS
BUSINESS_REQUIRED = ("legalName", "country", "taxId", "incorporatedOn")
GENERATORS = {"INDIVIDUAL": valid_individuals, "BUSINESS": valid_businesses}


@pytest.mark.runs_long  # its examples' requests go one after another
@pytest.mark.requirement("CUSTOMER-CREATE", "CUSTOMER-GET", "CUSTOMER-TYPE-VALUES")
@pytest.mark.parametrize("kind", ["INDIVIDUAL", "BUSINESS"])
def test_generated_valid_customers_are_created_and_read_back_unchanged(client, kind):
    currencies = provider_requirements(client.get("/config").json)

    @given(body=GENERATORS[kind](currencies))
    def accepted(body):
        created = client.post("/customers", json=body)
        customer = required_json(
            created,
            CLAUSE,
            f"POST /customers with valid {kind} fields creates the customer and returns it",
            status=(200, 201),
        )
        assert_reads_back(
            body,
            customer,
            CLAUSE,
            "POST /customers returns the customer with the fields sent",
            created.exchange,
        )
        read = client.get(f"/customers/{created.json['id']}")
        assert_reads_back(
            body,
            required_json(
                read, CLAUSE, "GET /customers/{customerId} returns the customer", status=200
            ),
            CLAUSE,
            "GET /customers/{customerId} returns every field as sent",
            read.exchange,
        )
        status_field = "kybStatus" if kind == "BUSINESS" else "kycStatus"
        check(
            read.json.get(status_field) is not None,
            CLAUSE,
            f"GET /customers/{{customerId}} returns the customer with its {status_field}",
            observed=sorted(read.json),
            exchange=read.exchange,
        )

    accepted()


@pytest.mark.runs_long  # its examples' requests go one after another
@pytest.mark.requirement("CUSTOMER-PATCH")
@pytest.mark.parametrize("kind", ["INDIVIDUAL", "BUSINESS"])
def test_patch_changes_the_fields_it_sends_and_nothing_else(onboarding, client, kind):
    original = business_body() if kind == "BUSINESS" else individual_body("001")
    customer = onboarding.create(original)

    @given(patch=valid_customer_patches(kind))
    def changed(patch):
        before = client.get(f"/customers/{customer['id']}").json
        response = client.patch(f"/customers/{customer['id']}", json=patch)
        assert_reads_back(
            patch,
            required_json(
                response,
                CLAUSE,
                "PATCH /customers/{customerId} with valid fields returns the updated customer",
                status=None,  # §4 gives PATCH no status: any 2xx with the resource
            ),
            CLAUSE,
            "PATCH /customers/{customerId} returns the fields it changed",
            response.exchange,
        )
        after = client.get(f"/customers/{customer['id']}")
        assert_reads_back(
            patch,
            after.json,
            CLAUSE,
            "PATCH /customers/{customerId} changes the fields sent",
            after.exchange,
        )
        untouched = {k: before[k] for k in original if k not in patch and k in before}
        assert_reads_back(
            untouched,
            after.json,
            CLAUSE,
            "PATCH /customers/{customerId} leaves the fields it does not send",
            after.exchange,
        )

    changed()


@pytest.mark.requirement("CUSTOMER-CREATE-TYPE-REQUIRED")
def test_a_customer_without_a_type_is_refused(client):
    body = individual_body()
    del body["customerType"]
    assert_invalid_input(client.post("/customers", json=body), [("customerType",)], CLAUSE)


@pytest.mark.requirement("CUSTOMER-CREATE-BUSINESS-INFO-REQUIRED")
@pytest.mark.parametrize("field", [*BUSINESS_REQUIRED, "all"])
def test_a_business_needs_the_four_required_business_info_fields(client, field):
    body = business_body()
    missing: tuple[str, ...] = ("businessInfo",) if field == "all" else ("businessInfo", field)
    if field == "all":
        del body["businessInfo"]
    else:
        del body["businessInfo"][field]
    assert_invalid_input(client.post("/customers", json=body), [missing], CLAUSE)


@pytest.mark.requirement("CUSTOMER-PER-PLATFORM")
def test_another_platform_can_neither_read_nor_change_a_customer(onboarding, client, second_client):
    customer = onboarding.individual("001")
    path = f"/customers/{customer['id']}"
    read = second_client.get(path)
    check(
        read.status in (403, 404),
        clauses.WHAT_THE_SERVICE_DOES,
        "customers belong to the platform that created them: another platform cannot read one",
        expected="403 or 404",
        observed=read.status,
        exchange=read.exchange,
    )
    changed = second_client.patch(path, json={"platformCustomerId": "taken-over"})
    check(
        changed.status in (403, 404),
        clauses.WHAT_THE_SERVICE_DOES,
        "customers belong to the platform that created them: another platform cannot change one",
        expected="403 or 404",
        observed=changed.status,
        exchange=changed.exchange,
    )
    after = onboarding.get(customer["id"])
    check(
        after.get("platformCustomerId") == customer.get("platformCustomerId"),
        clauses.WHAT_THE_SERVICE_DOES,
        "another platform's PATCH leaves the customer unchanged",
        expected=customer.get("platformCustomerId"),
        observed=after.get("platformCustomerId"),
    )
