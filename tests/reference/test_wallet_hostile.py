"""Hostile input to every wallet endpoint: a 4xx naming the problem, never a 500."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from .reference_helpers import RunningSandbox
from .test_wallet_passkeys import passkey
from .wallet_client_helpers import claims, customer, email_credential, jwt, wallet, wallet_account

ODD: list[Any] = [
    None,
    True,
    0,
    -1,
    10**40,
    1.5e308,
    "",
    "x" * 20_000,
    "\u0000\ud7ff\uffff",
    [],
    [[[[[]]]]],
    {},
    {"nested": {"deeper": [1, "two", None]}},
    "04" + "ff" * 64,
    "eyJhbGciOiJub25lIn0.e30.",
]
FIELDS = [
    "customerId",
    "type",
    "email",
    "phoneNumber",
    "oidcToken",
    "challenge",
    "attestation",
    "encryptedOtpBundle",
    "assertion",
    "clientPublicKey",
    "targetPublicKey",
    "privateEnabled",
]


@pytest.fixture(scope="module")
def targets(sandbox: RunningSandbox) -> dict[str, str]:
    enclave = sandbox.banner["wallet_enclave_public_key"]
    with sandbox.client() as client:
        otp = email_credential(client, customer(client))["id"]
        key = passkey(client).credential["id"]
        body = {"customerId": customer(client), "type": "OAUTH", "oidcToken": jwt(claims())}
        oauth = client.post("/auth/credentials", json=body).json()["id"]
        owner = wallet(client, enclave)
        account = wallet_account(client, owner.customer_id)["id"]
    return {"otp": otp, "passkey": key, "oauth": oauth, "account": account}


def _paths(targets: dict[str, str]) -> list[tuple[str, str]]:
    paths = [("POST", "/auth/credentials")]
    for kind in ("otp", "passkey", "oauth"):
        paths += [
            ("POST", f"/auth/credentials/{targets[kind]}/challenge"),
            ("POST", f"/auth/credentials/{targets[kind]}/verify"),
        ]
    account = targets["account"]
    return [
        *paths,
        ("PATCH", f"/internal-accounts/{account}"),
        ("POST", f"/internal-accounts/{account}/export"),
    ]


@pytest.mark.parametrize("value", ODD, ids=range(len(ODD)))
def test_no_500_for_odd_field_values(
    client: httpx.Client, targets: dict[str, str], value: Any
) -> None:
    body = dict.fromkeys(FIELDS, value)
    for method, path in _paths(targets):
        for sent in (body, {**body, "type": "PASSKEY"}, {**body, "type": "OAUTH"}, value):
            response = client.request(method, path, json=sent)
            assert response.status_code < 500, (method, path, sent, response.text)
            text = "".join(c for c in str(value)[:200] if " " <= c <= "~")
            headers = {"Service-Wallet-Signature": text, "Request-Id": text}
            response = client.request(method, path, json=sent, headers=headers)
            assert response.status_code < 500, (method, path, sent, response.text)


def test_no_500_for_odd_headers_on_signed_deletes(
    client: httpx.Client, targets: dict[str, str]
) -> None:
    for value in ("", "zz", "00", "sandbox-valid-signature", "x" * 5000):
        headers = {"Service-Wallet-Signature": value, "Request-Id": value}
        for path in (f"/auth/credentials/{targets['otp']}", "/auth/sessions/Session:x"):
            assert client.delete(path, headers=headers).status_code < 500
