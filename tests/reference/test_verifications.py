"""``POST /verifications`` and ``GET /verifications``: packet completeness, every sandbox
suffix in each platform mode (default, regulated, skip paperwork), final states, renaming,
and beneficial owner outcomes."""

from __future__ import annotations

import re

import httpx
import pytest

from .customer_helpers import (
    PDF,
    business,
    complete_business,
    complete_individual,
    created,
    error_fields,
    individual,
    owner_body,
    status_of,
    submit,
    upload,
)

IDENTITY = "document:PASSPORT,DRIVERS_LICENSE,NATIONAL_ID"
CERTIFICATE = "document:CERTIFICATE_OF_INCORPORATION"


def final_refusal(client: httpx.Client, customer_id: str) -> None:
    response = client.post("/verifications", json={"customerId": customer_id})
    assert response.status_code == 400, response.text
    assert response.json()["code"] == "CUSTOMER_STATUS_FINAL"


# -- packets ---------------------------------------------------------------------------------


def test_incomplete_individual_lists_each_missing_item(client: httpx.Client) -> None:
    bare = {"customerType": "INDIVIDUAL", "fullName": "Cher", "currencies": []}
    customer = created(client.post("/customers", json=bare))
    cid = customer["id"]
    verification = submit(client, cid)
    assert re.fullmatch(r"Verification:[0-9a-f-]{36}", verification["id"])
    assert verification["customerId"] == cid
    assert verification["verificationStatus"] == "RESOLVE_ERRORS"
    assert error_fields(verification) == {
        (cid, "fullName"),  # a single word: given and family name needed
        (cid, "birthDate"),
        (cid, "nationality"),
        (cid, "idType"),
        (cid, "identifier"),
        (cid, "address"),
        (cid, IDENTITY),
    }
    assert all(e["reason"] for e in verification["errors"])
    types = {e["type"] for e in verification["errors"]}
    assert types == {"MISSING_FIELD", "MISSING_IDENTITY_DOCUMENT"}
    assert status_of(client, cid) == "UNVERIFIED"
    assert client.get("/verifications", params={"customerId": cid}).json() == verification


def test_identity_document_needs_a_passport_or_both_sides(client: httpx.Client) -> None:
    customer = created(client.post("/customers", json=individual("Ann Lee 001")))
    cid = customer["id"]
    created(upload(client, cid, "DRIVERS_LICENSE", side="FRONT"))
    created(upload(client, cid, "NATIONAL_ID", side="BACK"))
    assert error_fields(submit(client, cid)) == {(cid, IDENTITY)}
    created(upload(client, cid, "DRIVERS_LICENSE", side="BACK"))
    assert submit(client, cid)["verificationStatus"] == "PENDING_MANUAL_REVIEW"


def test_verification_lookups(client: httpx.Client, second_client: httpx.Client) -> None:
    customer = created(client.post("/customers", json=individual()))
    none_yet = client.get("/verifications", params={"customerId": customer["id"]})
    assert none_yet.status_code == 404
    assert client.get("/verifications").status_code == 400
    assert client.post("/verifications", json={}).status_code == 400
    submit(client, customer["id"])
    for response in (
        second_client.post("/verifications", json={"customerId": customer["id"]}),
        second_client.get("/verifications", params={"customerId": customer["id"]}),
    ):
        assert response.status_code == 404


def test_incomplete_business_lists_business_items_and_owners(client: httpx.Client) -> None:
    firm = created(client.post("/customers", json=business(registration=None)))
    fid = firm["id"]
    assert error_fields(submit(client, fid)) == {
        (fid, "businessInfo.registrationNumber"),
        (fid, CERTIFICATE),
        (fid, "beneficialOwners"),
    }
    body = owner_body(fid, roles=["UBO"], personalInfo={"firstName": "Bo", "lastName": "Li"})
    owner = created(client.post("/beneficial-owners", json=body))
    oid = owner["id"]
    assert error_fields(submit(client, fid)) == {
        (fid, "businessInfo.registrationNumber"),
        (fid, CERTIFICATE),
        (fid, "beneficialOwners.roles"),
        *{
            (oid, f"personalInfo.{key}")
            for key in ("birthDate", "nationality", "address", "idType", "identifier")
        },
        (oid, IDENTITY),
    }
    assert status_of(client, fid) == "UNVERIFIED"


# -- individuals, default (unregulated) platform ---------------------------------------------


@pytest.mark.parametrize(
    ("name", "verification_status", "status"),
    [
        ("Ann Lee 001", "PENDING_MANUAL_REVIEW", "PENDING"),
        ("Ann Lee 003", "APPROVED", "APPROVED"),
        ("Ann Lee 002", "REJECTED", "REJECTED"),
        ("Ann Lee 005", "APPROVED", "APPROVED"),
        ("Ann Leeson", "APPROVED", "APPROVED"),
    ],
)
def test_individual_suffixes_unregulated(
    client: httpx.Client, name: str, verification_status: str, status: str
) -> None:
    customer = created(client.post("/customers", json=individual(name)))
    assert customer["kycStatus"] == "UNVERIFIED"  # nothing resolves at creation
    created(upload(client, customer["id"]))
    assert submit(client, customer["id"])["verificationStatus"] == verification_status
    assert status_of(client, customer["id"]) == status


def test_suffix_decides_only_once_the_packet_is_complete(client: httpx.Client) -> None:
    customer = created(client.post("/customers", json=individual("Ann Lee 002")))
    assert submit(client, customer["id"])["verificationStatus"] == "RESOLVE_ERRORS"
    assert status_of(client, customer["id"]) == "UNVERIFIED"


def test_resubmitting_a_manual_review_packet(client: httpx.Client) -> None:
    customer = complete_individual(client, "Ann Lee 001")
    for _ in range(2):
        assert submit(client, customer["id"])["verificationStatus"] == "PENDING_MANUAL_REVIEW"
        assert status_of(client, customer["id"]) == "PENDING"


def test_final_status_is_final_and_renaming_never_rederives(client: httpx.Client) -> None:
    rejected = complete_individual(client, "Ann Lee 002")
    approved = complete_individual(client, "Ann Lee 003")
    submit(client, rejected["id"])
    submit(client, approved["id"])
    for customer, status in ((rejected, "REJECTED"), (approved, "APPROVED")):
        final_refusal(client, customer["id"])
        renamed = client.patch(f"/customers/{customer['id']}", json={"fullName": "Ann Lee 001"})
        assert renamed.json()["kycStatus"] == status
        final_refusal(client, customer["id"])


def test_suffix_is_read_when_the_name_first_arrives(client: httpx.Client) -> None:
    customer = created(client.post("/customers", json={"customerType": "INDIVIDUAL"}))
    url = f"/customers/{customer['id']}"
    fields = individual("Ann Lee 003")
    del fields["customerType"]
    client.patch(url, json=fields)
    client.patch(url, json={"fullName": "Ann Lee 002"})  # later renames do not count
    created(upload(client, customer["id"]))
    assert submit(client, customer["id"])["verificationStatus"] == "APPROVED"


# -- individuals where suffixes resolve early (regulated, skip paperwork) --------------------


@pytest.mark.parametrize(
    ("name", "at_creation"),
    [
        ("Ann Lee 001", "PENDING"),
        ("Ann Lee 003", "PENDING"),
        ("Ann Lee 002", "REJECTED"),
        ("Ann Lee 009", "APPROVED"),
        ("Ann Leeson", "APPROVED"),
    ],
)
def test_individual_suffixes_resolve_at_creation(
    early_client: httpx.Client, name: str, at_creation: str
) -> None:
    customer = created(early_client.post("/customers", json=individual(name)))
    assert customer["kycStatus"] == at_creation
    if at_creation == "REJECTED":
        final_refusal(early_client, customer["id"])


@pytest.mark.parametrize(
    ("name", "verification_status", "status"),
    [("Ann Lee 001", "PENDING_MANUAL_REVIEW", "PENDING"), ("Ann Lee 003", "APPROVED", "APPROVED")],
)
def test_submittable_suffixes_still_need_the_packet(
    early_client: httpx.Client, name: str, verification_status: str, status: str
) -> None:
    customer = created(early_client.post("/customers", json=individual(name)))
    incomplete = submit(early_client, customer["id"])
    assert error_fields(incomplete) == {(customer["id"], IDENTITY)}
    assert status_of(early_client, customer["id"]) == "PENDING"
    created(upload(early_client, customer["id"]))
    assert submit(early_client, customer["id"])["verificationStatus"] == verification_status
    assert status_of(early_client, customer["id"]) == status


# -- businesses ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("registration", "verification_status", "status"),
    [
        ("RC-1001", "PENDING_MANUAL_REVIEW", "PENDING"),
        ("RC-1002", "REJECTED", "REJECTED"),
        ("RC-1003", "APPROVED", "APPROVED"),
        ("RC-1777", "APPROVED", "APPROVED"),
    ],
)
def test_business_suffixes_unregulated(
    client: httpx.Client, registration: str, verification_status: str, status: str
) -> None:
    firm = created(client.post("/customers", json=business(registration)))
    assert firm["kybStatus"] == "UNVERIFIED"
    assert submit(client, firm["id"])["verificationStatus"] == "RESOLVE_ERRORS"  # packet first
    firm, _ = complete_business(client, registration)
    assert firm["kybStatus"] == "UNVERIFIED"
    assert submit(client, firm["id"])["verificationStatus"] == verification_status
    assert status_of(client, firm["id"]) == status


@pytest.mark.parametrize(
    ("registration", "status"), [("RC-2002", "REJECTED"), ("RC-2555", "APPROVED")]
)
def test_final_business_suffix_resolves_before_the_packet(
    early_client: httpx.Client, registration: str, status: str
) -> None:
    firm = created(early_client.post("/customers", json=business(registration)))
    assert firm["kybStatus"] == "UNVERIFIED"  # businesses never resolve at creation
    verification = submit(early_client, firm["id"])
    assert verification["verificationStatus"] == status and verification["errors"] == []
    assert status_of(early_client, firm["id"]) == status


@pytest.mark.parametrize(
    ("registration", "verification_status", "status"),
    [("RC-3001", "PENDING_MANUAL_REVIEW", "PENDING"), ("RC-3003", "APPROVED", "APPROVED")],
)
def test_submittable_business_suffixes_need_the_packet(
    early_client: httpx.Client, registration: str, verification_status: str, status: str
) -> None:
    firm = created(early_client.post("/customers", json=business(registration)))
    missing = error_fields(submit(early_client, firm["id"]))
    assert missing == {(firm["id"], CERTIFICATE), (firm["id"], "beneficialOwners")}
    firm, _ = complete_business(early_client, registration)
    assert submit(early_client, firm["id"])["verificationStatus"] == verification_status
    assert status_of(early_client, firm["id"]) == status


def test_registration_number_first_set_by_patch(client: httpx.Client) -> None:
    firm, _ = complete_business(client, "RC-4003")
    other = created(client.post("/customers", json=business(registration=None)))
    created(
        upload(
            client,
            other["id"],
            "CERTIFICATE_OF_INCORPORATION",
            content=PDF,
            content_type="application/pdf",
        )
    )
    owner = created(client.post("/beneficial-owners", json=owner_body(other["id"])))
    created(upload(client, owner["id"]))
    url = f"/customers/{other['id']}"
    client.patch(url, json={"businessInfo": {"registrationNumber": "RC-4002"}})
    client.patch(url, json={"businessInfo": {"registrationNumber": "RC-4003"}})  # ignored
    assert submit(client, other["id"])["verificationStatus"] == "REJECTED"
    assert submit(client, firm["id"])["verificationStatus"] == "APPROVED"
    final_refusal(client, firm["id"])


@pytest.mark.parametrize(
    ("registration", "owner_last", "owner_status"),
    [
        ("RC-5003", "Smith 002", "REJECTED"),
        ("RC-5003", "Smith", "APPROVED"),
        ("RC-5002", "Smith 001", "APPROVED"),
        ("RC-5001", "Smith 002", "UNVERIFIED"),  # the business is not terminal yet
    ],
)
def test_beneficial_owner_outcomes(
    client: httpx.Client, registration: str, owner_last: str, owner_status: str
) -> None:
    firm, owner = complete_business(client, registration, owner_last)
    submit(client, firm["id"])
    assert client.get(f"/beneficial-owners/{owner['id']}").json()["kycStatus"] == owner_status
