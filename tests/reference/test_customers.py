"""``POST /customers``, ``GET`` and ``PATCH /customers/{customerId}``: fields, validation
(every invalid field at once), tax ids, provider-required fields and platform isolation."""

from __future__ import annotations

import re

import httpx
import pytest

from .customer_helpers import (
    ADDRESS,
    business,
    business_info,
    conflicts,
    constraints,
    created,
    individual,
)
from .reference_helpers import currency, invalid_fields

CUSTOMER_ID = re.compile(r"Customer:[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
ISO_MS = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z")


def test_create_individual_echoes_every_field(client: httpx.Client) -> None:
    body = individual(
        platformCustomerId="p-1",
        email="ann@example.com",
        phoneNumber="+14155550100",
        region="US",
        currencies=["USD"],
        countryOfIssuance="US",
        purposeOfAccount="PAYROLL",
        sourceOfFunds="SALARY",
        politicallyExposedPerson=False,
    )
    customer = created(client.post("/customers", json=body))
    assert CUSTOMER_ID.fullmatch(customer["id"])
    for key, value in body.items():
        assert customer[key] == value, key
    assert customer["kycStatus"] == "UNVERIFIED"
    assert "kybStatus" not in customer and "businessInfo" not in customer
    assert "contactVerification" not in customer  # not an EEA customer
    assert customer["agreementConsents"] == []
    assert "endUserTermsConsent" not in customer
    assert (
        ISO_MS.fullmatch(customer["createdAt"]) and customer["createdAt"] == customer["updatedAt"]
    )
    assert client.get(f"/customers/{customer['id']}").json() == customer


def test_create_business(client: httpx.Client) -> None:
    info = business_info(countriesOfOperation=["US", "CA"], entityType="LLC")
    customer = created(client.post("/customers", json=business(businessInfo=info)))
    assert customer["customerType"] == "BUSINESS"
    assert customer["businessInfo"] == info
    assert customer["kybStatus"] == "UNVERIFIED" and "kycStatus" not in customer


def test_patch_changes_only_what_is_sent(client: httpx.Client) -> None:
    customer = created(client.post("/customers", json=individual(email="a@example.com")))
    response = client.patch(
        f"/customers/{customer['id']}",
        json={"email": "b@example.com", "customerType": "INDIVIDUAL"},
    )
    assert response.status_code == 200, response.text
    patched = response.json()
    assert patched["email"] == "b@example.com"
    assert patched["fullName"] == customer["fullName"]
    assert patched["createdAt"] == customer["createdAt"]
    assert patched["updatedAt"] > customer["updatedAt"]


def test_patch_merges_business_info_and_checks_the_result(client: httpx.Client) -> None:
    customer = created(client.post("/customers", json=business()))
    url = f"/customers/{customer['id']}"
    patched = client.patch(url, json={"businessInfo": {"legalName": "Acme Two"}}).json()
    assert patched["businessInfo"] == {**business_info(), "legalName": "Acme Two"}
    # a new country re-validates the stored tax id: the stored one, so the record's state
    assert conflicts(client.patch(url, json={"businessInfo": {"country": "GB"}})) == {
        "businessInfo.taxId": "TAX_ID_FORMAT"
    }


def test_unknown_and_foreign_customers_are_404(
    client: httpx.Client, second_client: httpx.Client
) -> None:
    customer = created(client.post("/customers", json=individual()))
    for response in (
        second_client.get(f"/customers/{customer['id']}"),
        second_client.patch(f"/customers/{customer['id']}", json={"fullName": "X Y"}),
        client.get("/customers/Customer:00000000-0000-4000-8000-000000000000"),
    ):
        assert response.status_code == 404
        assert response.json()["code"] == "NOT_FOUND"
    assert client.get(f"/customers/{customer['id']}").json()["fullName"] == "Ann Lee 001"


def test_every_invalid_field_is_reported_at_once(client: httpx.Client) -> None:
    body = {
        "customerType": "INDIVIDUAL",
        "fullName": 7,
        "birthDate": "2023-02-30",
        "nationality": "us",
        "email": "not-an-email",
        "phoneNumber": "555-0100",
        "region": "XX",
        "address": {"line1": "1 Main St", "country": "USA"},
        "currencies": ["XYZ", "USD"],
        "businessInfo": business_info(),
        "countryOfIssuance": "ZZ",
    }
    assert constraints(client.post("/customers", json=body)) == {
        "fullName": "TYPE_STRING",
        "birthDate": "DATE",
        "nationality": "ISO_3166",
        "email": "EMAIL",
        "phoneNumber": "E164",
        "region": "ISO_3166",
        "address.city": "REQUIRED",
        "address.postalCode": "REQUIRED",
        "address.country": "ISO_3166",
        "currencies[0]": "UNSUPPORTED_CURRENCY",
        "businessInfo": "NOT_ALLOWED",
        "countryOfIssuance": "ISO_3166",
    }


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ({}, {"customerType": "REQUIRED"}),
        ({"customerType": "PERSON"}, {"customerType": "ENUM"}),
        (individual(birthDate="0000-01-01"), {"birthDate": "DATE"}),  # there is no year 0
        (individual(birthDate="1990-4-1"), {"birthDate": "DATE"}),
        ({"customerType": "BUSINESS"}, {"businessInfo": "REQUIRED"}),
        (
            {"customerType": "BUSINESS", "businessInfo": {"registrationNumber": "R1"}},
            {f"businessInfo.{k}": "REQUIRED" for k in ("legalName", "country", "taxId")}
            | {"businessInfo.incorporatedOn": "REQUIRED"},
        ),
        (
            business(businessInfo=business_info(countriesOfOperation=["US", "uk"])),
            {"businessInfo.countriesOfOperation[1]": "ISO_3166"},
        ),
        (individual(fullName="  "), {"fullName": "MIN_LENGTH"}),
    ],
)
def test_create_rules(
    client: httpx.Client, body: dict[str, object], expected: dict[str, str]
) -> None:
    assert constraints(client.post("/customers", json=body)) == expected


def test_customer_type_is_immutable_and_business_info_individual_only(
    client: httpx.Client,
) -> None:
    person = created(client.post("/customers", json=individual()))
    response = client.patch(
        f"/customers/{person['id']}",
        json={"customerType": "BUSINESS", "businessInfo": business_info()},
    )
    assert conflicts(response) == {"customerType": "IMMUTABLE", "businessInfo": "NOT_ALLOWED"}


def test_currencies_are_codes_the_sandbox_knows(client: httpx.Client) -> None:
    """Any currency the sandbox knows, listed by the platform's config or not: the config
    governs what moves (quotes), not the profile."""
    assert constraints(client.post("/customers", json=individual(currencies=["XYZ"]))) == {
        "currencies[0]": "UNSUPPORTED_CURRENCY"
    }
    assert client.post("/customers", json=individual(currencies=["GBP"])).status_code == 201


TAX_IDS = [
    ("US", "12-3456789", True),
    ("US", "123456789", True),
    ("US", "12345678", False),
    ("GB", "1234567890", True),
    ("GB", "GB123456789", True),
    ("GB", "GB12345678", False),
    ("DE", "12345678901", True),
    ("DE", "DE123456789", True),
    ("DE", "123456789", False),
    ("MX", "ABC010203XY1", True),
    ("MX", "ABCD010203XY1", True),
    ("MX", "ABC0102", False),
    ("BR", "12.345.678/0001-90", True),
    ("BR", "12345678000190", True),
    ("BR", "1234567800019", False),
    ("CA", "123456789", True),
    ("CA", "12345678", False),
    ("FR", "FR-12345", True),
    ("FR", "123", False),
    ("FR", "12 345", False),
]


@pytest.mark.parametrize(("country", "tax_id", "valid"), TAX_IDS)
def test_tax_ids_by_country(client: httpx.Client, country: str, tax_id: str, valid: bool) -> None:
    info = business_info(country=country, taxId=tax_id)
    response = client.post("/customers", json=business(businessInfo=info))
    if valid:
        assert response.status_code == 201, response.text
    else:
        assert constraints(response) == {"businessInfo.taxId": "TAX_ID_FORMAT"}


def test_provider_required_fields_per_currency(client: httpx.Client) -> None:
    client.patch(
        "/config",
        json={"supportedCurrencies": [currency("USD"), currency("EUR"), currency("BRL")]},
    )
    bare = {"customerType": "INDIVIDUAL", "fullName": "Ann Lee"}
    response = client.post("/customers", json={**bare, "currencies": ["EUR", "BRL"]})
    assert constraints(response) == {
        "birthDate": "PROVIDER_REQUIRED",
        "nationality": "PROVIDER_REQUIRED",
        "address": "PROVIDER_REQUIRED",
        "identifier": "PROVIDER_REQUIRED",  # BRL needs TAX_ID: an individual's identifier
    }
    # a field sent but invalid is reported once, for what is wrong with it
    response = client.post("/customers", json={**bare, "currencies": ["USD"], "birthDate": "x"})
    assert constraints(response) == {"birthDate": "DATE", "address": "PROVIDER_REQUIRED"}
    # PATCH: checked against the customer as it is after the request: its state (409)
    customer = created(client.post("/customers", json=bare))
    url = f"/customers/{customer['id']}"
    assert conflicts(client.patch(url, json={"currencies": ["USD"]})) == {
        "birthDate": "PROVIDER_REQUIRED",
        "address": "PROVIDER_REQUIRED",
    }
    fixed = {"currencies": ["USD"], "birthDate": "1990-01-01", "address": ADDRESS}
    assert client.patch(url, json=fixed).status_code == 200
    # a business carries the person-shaped names in businessInfo
    assert client.post("/customers", json=business(currencies=["BRL"])).status_code == 201


def test_null_is_refused_on_create_and_on_patch(client: httpx.Client) -> None:
    """The interface gives null no meaning on a request: refused, naming each field."""
    answer = client.post("/customers", json=individual(email=None, region=None))
    assert answer.status_code == 400, answer.text
    errors = answer.json()["details"]["errors"]
    assert {(e["field"], e["constraint"]) for e in errors} == {
        ("email", "NOT_NULL"),
        ("region", "NOT_NULL"),
    }
    customer = created(client.post("/customers", json=individual()))
    url = f"/customers/{customer['id']}"
    nulls = {"fullName": None, "currencies": None, "agreementConsents": None}
    refused = client.patch(url, json={**nulls, "email": "ann@example.com"})
    assert refused.status_code == 400, refused.text
    errors = refused.json()["details"]["errors"]
    assert {(e["field"], e["constraint"]) for e in errors} == {(name, "NOT_NULL") for name in nulls}
    assert client.get(url).json() == customer  # nothing of a refused PATCH is kept
    business_id = created(client.post("/customers", json=business()))["id"]
    answer = client.patch(f"/customers/{business_id}", json={"businessInfo": {"taxId": None}})
    assert invalid_fields(answer) == {"businessInfo.taxId"}
