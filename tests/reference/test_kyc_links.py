"""KYC links: shape, fresh single-use links, ``Idempotency-Key``, the 409 while contact
verification is incomplete, the hosted page and the sandbox completion."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from urllib.parse import parse_qs, urlsplit

import httpx
import pytest

from .customer_helpers import business, constraints, created, individual, status_of
from .reference_helpers import RunningSandbox

REDIRECT = "https://platform.example/after-kyc?step=2"


def link_for(client: httpx.Client, customer_id: str, **headers: str) -> httpx.Response:
    return client.post(
        f"/customers/{customer_id}/kyc-link", json={"redirectUri": REDIRECT}, headers=headers
    )


def link_id(kyc_url: str) -> str:
    return urlsplit(kyc_url).path.rsplit("/", 1)[-1]


def complete(client: httpx.Client, kyc_url: str) -> httpx.Response:
    return client.post(f"/sandbox/kyc-links/{link_id(kyc_url)}/complete")


def test_link_shape_and_freshness(sandbox: RunningSandbox, client: httpx.Client) -> None:
    customer = created(client.post("/customers", json=individual()))
    response = link_for(client, customer["id"])
    assert response.status_code == 200, response.text
    link = response.json()
    assert link["provider"] == "SANDBOX_KYC" and link["token"]
    root = sandbox.base_url.rsplit("/", 1)[0]
    parts = urlsplit(link["kycUrl"])
    assert re.fullmatch(
        rf"{re.escape(root)}/hosted/kyc/[0-9a-f-]{{36}}", link["kycUrl"].split("?")[0]
    )
    assert parse_qs(parts.query) == {"redirectUri": [REDIRECT]}
    expires = datetime.fromisoformat(link["expiresAt"].replace("Z", "+00:00"))
    assert abs(expires - (datetime.now(UTC) + timedelta(hours=24))) < timedelta(minutes=1)
    again = link_for(client, customer["id"]).json()
    assert again["kycUrl"] != link["kycUrl"]


def test_idempotency_key(client: httpx.Client) -> None:
    customer = created(client.post("/customers", json=individual()))
    key = "k" * 255
    first = link_for(client, customer["id"], **{"Idempotency-Key": key}).json()
    assert link_for(client, customer["id"], **{"Idempotency-Key": key}).json() == first
    other_body = client.post(
        f"/customers/{customer['id']}/kyc-link",
        json={"redirectUri": "https://elsewhere.example/"},
        headers={"Idempotency-Key": key},
    )
    assert other_body.status_code == 409
    too_long = link_for(client, customer["id"], **{"Idempotency-Key": "k" * 256})
    assert constraints(too_long) == {"Idempotency-Key": "MAX_LENGTH"}


@pytest.mark.parametrize(
    ("body", "expected"),
    [({}, "REQUIRED"), ({"redirectUri": "no scheme"}, "URL"), ({"redirectUri": 5}, "TYPE_STRING")],
)
def test_redirect_uri_rules(client: httpx.Client, body: dict[str, object], expected: str) -> None:
    customer = created(client.post("/customers", json=individual()))
    response = client.post(f"/customers/{customer['id']}/kyc-link", json=body)
    assert constraints(response) == {"redirectUri": expected}


def test_link_waits_for_contact_verification(client: httpx.Client) -> None:
    customer = created(
        client.post("/customers", json=individual(region="FR", email="jean@example.fr"))
    )
    refused = link_for(client, customer["id"])
    assert refused.status_code == 409
    assert refused.json()["code"] == "CONTACT_VERIFICATION_INCOMPLETE"
    client.post(f"/customers/{customer['id']}/verify-email")
    code = client.get(f"/sandbox/customers/{customer['id']}/contact-verification/email").json()
    client.post(f"/customers/{customer['id']}/verify-email/confirm", json=code)
    assert link_for(client, customer["id"]).status_code == 200


def test_hosted_page_and_single_use(client: httpx.Client) -> None:
    customer = created(client.post("/customers", json=individual("Ann Lee 001")))
    first = link_for(client, customer["id"]).json()["kycUrl"]
    second = link_for(client, customer["id"]).json()["kycUrl"]
    page = httpx.get(first)  # unauthenticated
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
    done = complete(client, first)
    assert done.status_code == 200, done.text
    assert done.json()["verificationStatus"] == "PENDING_MANUAL_REVIEW"
    assert status_of(client, customer["id"]) == "PENDING"
    used = complete(client, first)
    assert used.status_code == 409 and used.json()["code"] == "LINK_ALREADY_USED"
    assert httpx.get(first).status_code == 410
    # an earlier link stays valid: still single-use, and the customer stays submittable
    assert complete(client, second).status_code == 200
    unknown = first.replace(link_id(first), "00000000-0000-4000-8000-000000000000")
    assert httpx.get(unknown).status_code == 404


@pytest.mark.parametrize(
    ("name", "expected"), [("Ann Lee 003", "APPROVED"), ("Ann Lee 002", "REJECTED")]
)
def test_hosted_flow_counts_as_complete(client: httpx.Client, name: str, expected: str) -> None:
    bare = created(client.post("/customers", json={"customerType": "INDIVIDUAL", "fullName": name}))
    assert complete(client, link_for(client, bare["id"]).json()["kycUrl"]).status_code == 200
    assert status_of(client, bare["id"]) == expected
    final = complete(client, link_for(client, bare["id"]).json()["kycUrl"])
    assert final.status_code == 400 and final.json()["code"] == "CUSTOMER_STATUS_FINAL"


def test_hosted_flow_for_a_business(client: httpx.Client) -> None:
    firm = created(client.post("/customers", json=business("RC-77002")))
    assert complete(client, link_for(client, firm["id"]).json()["kycUrl"]).status_code == 200
    assert status_of(client, firm["id"]) == "REJECTED"


def test_links_are_per_platform(client: httpx.Client, second_client: httpx.Client) -> None:
    customer = created(client.post("/customers", json=individual()))
    assert link_for(second_client, customer["id"]).status_code == 404
    url = link_for(client, customer["id"]).json()["kycUrl"]
    assert complete(second_client, url).status_code == 404
    assert complete(client, url).status_code == 200
