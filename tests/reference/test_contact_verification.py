"""Contact verification: which channels are required, send / resend / confirm, the sandbox
endpoint with the last code, and the 409s."""

from __future__ import annotations

import re
from typing import Any

import httpx

from .customer_helpers import business, constraints, created, individual

EEA_CONTACT = {"region": "DE", "email": "eva@example.de", "phoneNumber": "+4930123456"}


def eea_customer(client: httpx.Client, **overrides: object) -> dict[str, Any]:
    body = {**individual(), **EEA_CONTACT, **overrides}
    return created(client.post("/customers", json={k: v for k, v in body.items() if v is not None}))


def last_code(client: httpx.Client, customer_id: str, channel: str) -> str:
    response = client.get(f"/sandbox/customers/{customer_id}/contact-verification/{channel}")
    assert response.status_code == 200, response.text
    return str(response.json()["code"])


def test_required_channels(client: httpx.Client) -> None:
    both = eea_customer(client)
    assert both["contactVerification"] == {"email": "PENDING", "phone": "PENDING"}
    email_only = eea_customer(client, phoneNumber=None)
    assert email_only["contactVerification"] == {"email": "PENDING"}
    outside = created(client.post("/customers", json=individual(region="US", email="a@b.com")))
    assert "contactVerification" not in outside
    firm = created(client.post("/customers", json=business(**EEA_CONTACT)))
    assert "contactVerification" not in firm


def test_send_resend_and_confirm(client: httpx.Client) -> None:
    customer = eea_customer(client)
    base = f"/customers/{customer['id']}"
    sent = client.post(f"{base}/verify-email")
    assert sent.status_code == 200
    assert sent.json() == {"channel": "email", "status": "SENT"}
    first = last_code(client, customer["id"], "email")
    assert re.fullmatch(r"\d{6}", first)
    codes = {first}
    while len(codes) < 2:  # a resend replaces the code; retry the 1-in-a-million repeat
        client.post(f"{base}/verify-email")
        codes.add(last_code(client, customer["id"], "email"))
    second = last_code(client, customer["id"], "email")
    stale = client.post(f"{base}/verify-email/confirm", json={"code": first})
    assert stale.status_code == 401 and stale.json()["reason"].startswith("code mismatch")
    confirmed = client.post(f"{base}/verify-email/confirm", json={"code": second})
    assert confirmed.status_code == 200, confirmed.text
    assert confirmed.json()["contactVerification"] == {"email": "VERIFIED", "phone": "PENDING"}
    client.post(f"{base}/verify-phone")
    code = last_code(client, customer["id"], "phone")
    done = client.post(f"{base}/verify-phone/confirm", json={"code": code}).json()
    assert done["contactVerification"] == {"email": "VERIFIED", "phone": "VERIFIED"}


def test_confirm_without_a_sent_code_or_without_code(client: httpx.Client) -> None:
    customer = eea_customer(client)
    base = f"/customers/{customer['id']}"
    early = client.post(f"{base}/verify-phone/confirm", json={"code": "123456"})
    assert early.status_code == 409 and early.json()["code"] == "NO_CODE_SENT"
    client.post(f"{base}/verify-phone")
    assert constraints(client.post(f"{base}/verify-phone/confirm", json={})) == {"code": "CODE"}
    assert constraints(client.post(f"{base}/verify-phone/confirm", json={"code": "12"})) == {
        "code": "CODE"
    }
    response = client.get(f"/sandbox/customers/{customer['id']}/contact-verification/email")
    assert response.status_code == 404  # no email code sent yet


def test_channels_not_required_are_409(client: httpx.Client) -> None:
    outside = created(client.post("/customers", json=individual(region="US", email="a@b.com")))
    no_phone = eea_customer(client, phoneNumber=None)
    for url in (
        f"/customers/{outside['id']}/verify-email",
        f"/customers/{no_phone['id']}/verify-phone",
        f"/customers/{no_phone['id']}/verify-phone/confirm",
    ):
        response = client.post(url, json={"code": "000000"})
        assert response.status_code == 409, url
        assert response.json()["code"] == "CONTACT_VERIFICATION_NOT_REQUIRED"


def test_changing_the_address_needs_verifying_again(client: httpx.Client) -> None:
    customer = eea_customer(client, phoneNumber=None)
    base = f"/customers/{customer['id']}"
    client.post(f"{base}/verify-email")
    code = last_code(client, customer["id"], "email")
    client.post(f"{base}/verify-email/confirm", json={"code": code})
    same = client.patch(base, json={"email": EEA_CONTACT["email"], "fullName": "Eva Berg 001"})
    assert same.json()["contactVerification"] == {"email": "VERIFIED"}
    changed = client.patch(base, json={"email": "new@example.de"}).json()
    assert changed["contactVerification"] == {"email": "PENDING"}
    added = client.patch(base, json={"phoneNumber": "+4930999999"}).json()
    assert added["contactVerification"] == {"email": "PENDING", "phone": "PENDING"}


def test_codes_are_per_platform(client: httpx.Client, second_client: httpx.Client) -> None:
    customer = eea_customer(client)
    client.post(f"/customers/{customer['id']}/verify-email")
    for response in (
        second_client.get(f"/sandbox/customers/{customer['id']}/contact-verification/email"),
        second_client.post(f"/customers/{customer['id']}/verify-email"),
    ):
        assert response.status_code == 404
