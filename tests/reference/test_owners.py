"""``POST /beneficial-owners`` and ``GET /beneficial-owners/{ownerId}``."""

from __future__ import annotations

import re

import httpx

from .customer_helpers import (
    business,
    conflicts,
    constraints,
    created,
    individual,
    missing_records,
    owner_body,
)


def test_create_and_read_an_owner(client: httpx.Client) -> None:
    firm = created(client.post("/customers", json=business()))
    body = owner_body(firm["id"])
    owner = created(client.post("/beneficial-owners", json=body))
    assert re.fullmatch(r"BeneficialOwner:[0-9a-f-]{36}", owner["id"])
    for key in ("customerId", "roles", "ownershipPercentage", "personalInfo"):
        assert owner[key] == body[key], key
    assert owner["kycStatus"] == "UNVERIFIED" and owner["createdAt"].endswith("Z")
    assert client.get(f"/beneficial-owners/{owner['id']}").json() == owner


def test_every_invalid_field_at_once(client: httpx.Client) -> None:
    body = {
        "customerId": "Customer:00000000-0000-4000-8000-000000000000",
        "roles": ["DIRECTOR", "CEO"],
        "ownershipPercentage": 101,
        "personalInfo": {"birthDate": "1990-13-01", "nationality": "USA", "address": {}},
    }
    # an id naming no customer answers 404 before the rest is judged
    unknown = missing_records(client.post("/beneficial-owners", json=body))
    assert unknown == {"customerId": "UNKNOWN_CUSTOMER"}
    body["customerId"] = 7
    assert constraints(client.post("/beneficial-owners", json=body)) == {
        "customerId": "TYPE_STRING",
        "roles[1]": "ENUM",
        "ownershipPercentage": "MAXIMUM",
        "personalInfo.birthDate": "DATE",
        "personalInfo.nationality": "ISO_3166",
        "personalInfo.address.line1": "REQUIRED",
        "personalInfo.address.city": "REQUIRED",
        "personalInfo.address.postalCode": "REQUIRED",
        "personalInfo.address.country": "REQUIRED",
    }
    assert constraints(client.post("/beneficial-owners", json={})) == {
        "customerId": "REQUIRED",
        "personalInfo": "REQUIRED",
    }


def test_owners_belong_to_businesses_of_the_platform(
    client: httpx.Client, second_client: httpx.Client
) -> None:
    person = created(client.post("/customers", json=individual()))
    response = client.post("/beneficial-owners", json=owner_body(person["id"]))
    assert conflicts(response) == {"customerId": "BUSINESS_ONLY"}
    firm = created(client.post("/customers", json=business()))
    response = second_client.post("/beneficial-owners", json=owner_body(firm["id"]))
    assert missing_records(response) == {"customerId": "UNKNOWN_CUSTOMER"}
    owner = created(client.post("/beneficial-owners", json=owner_body(firm["id"])))
    assert second_client.get(f"/beneficial-owners/{owner['id']}").status_code == 404


def test_shares_of_one_business_sum_to_at_most_100(client: httpx.Client) -> None:
    firm = created(client.post("/customers", json=business()))
    created(client.post("/beneficial-owners", json=owner_body(firm["id"], ownershipPercentage=60)))
    created(
        client.post("/beneficial-owners", json=owner_body(firm["id"], ownershipPercentage=39.5))
    )
    over = client.post("/beneficial-owners", json=owner_body(firm["id"], ownershipPercentage=1))
    assert conflicts(over) == {"ownershipPercentage": "OWNERSHIP_TOTAL"}  # the others' shares
    assert constraints(
        client.post("/beneficial-owners", json=owner_body(firm["id"], ownershipPercentage=-1))
    ) == {"ownershipPercentage": "MINIMUM"}
    assert constraints(
        client.post("/beneficial-owners", json=owner_body(firm["id"], ownershipPercentage="5"))
    ) == {"ownershipPercentage": "TYPE_NUMBER"}
