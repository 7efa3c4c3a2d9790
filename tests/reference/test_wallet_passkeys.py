"""PASSKEY credentials (§5 item 2): WebAuthn registration and assertion, each check refused
with its own reason, and the session key sealed to the client's key."""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any

import httpx
import pytest
from cryptography.hazmat.primitives.asymmetric import ec

from .reference_helpers import RunningSandbox, invalid_fields
from .wallet_client_helpers import (
    SoftAuthenticator,
    b64url,
    customer,
    key_from_scalar,
    new_key,
    open_bundle,
    pub_hex,
)


def _reason(response: httpx.Response) -> str:
    assert response.status_code == 401, response.text
    return str(response.json()["reason"])


@dataclass
class Passkey:
    credential: dict[str, Any]
    authenticator: SoftAuthenticator


def register(
    client: httpx.Client, authenticator: SoftAuthenticator | None = None, **kwargs: Any
) -> httpx.Response:
    authenticator = authenticator or SoftAuthenticator()
    challenge = os.urandom(32)
    body = {
        "customerId": kwargs.pop("customer_id", None) or customer(client),
        "type": "PASSKEY",
        "challenge": b64url(kwargs.pop("sent_challenge", challenge)),
        "attestation": authenticator.attestation(challenge, **kwargs),
    }
    return client.post("/auth/credentials", json=body)


def passkey(client: httpx.Client) -> Passkey:
    authenticator = SoftAuthenticator()
    response = register(client, authenticator)
    assert response.status_code == 201, response.text
    return Passkey(response.json(), authenticator)


def challenge(
    client: httpx.Client, key: Passkey, client_key: ec.EllipticCurvePrivateKey
) -> dict[str, Any]:
    response = client.post(
        f"/auth/credentials/{key.credential['id']}/challenge",
        json={"clientPublicKey": pub_hex(client_key)},
    )
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return body


def verify(
    client: httpx.Client, key: Passkey, answer: dict[str, Any], assertion: dict[str, Any]
) -> httpx.Response:
    return client.post(
        f"/auth/credentials/{key.credential['id']}/verify",
        json={"assertion": assertion},
        headers={"Request-Id": answer["requestId"]},
    )


def test_registration_and_login(client: httpx.Client, sandbox: RunningSandbox) -> None:
    key = passkey(client)
    assert key.credential["type"] == "PASSKEY"
    assert key.credential["passkey"]["credentialId"] == b64url(key.authenticator.credential_id)
    client_key = new_key()
    answer = challenge(client, key, client_key)
    assert answer["credentialId"] == key.credential["passkey"]["credentialId"]
    response = verify(client, key, answer, key.authenticator.assertion(answer["challenge"]))
    assert response.status_code == 200, response.text
    body = response.json()
    enclave = sandbox.banner["wallet_enclave_public_key"]
    session_key = key_from_scalar(
        open_bundle(body["encryptedSessionSigningKey"], enclave, client_key)
    )
    assert pub_hex(session_key) == body["session"]["publicKey"]


@pytest.mark.parametrize(
    ("change", "reason"),
    [
        ({"origin": "https://evil.example"}, "origin mismatch"),
        ({"rp_id": "evil.example"}, "rp id mismatch"),
        ({"sent_challenge": b"other challenge"}, "challenge mismatch"),
        ({"flags": 0x44}, "user not present"),
    ],
)
def test_registration_refusals(client: httpx.Client, change: dict[str, Any], reason: str) -> None:
    assert _reason(register(client, **change)) == reason


def test_registration_lists_every_invalid_field(client: httpx.Client) -> None:
    body = {
        "customerId": "x",
        "type": "PASSKEY",
        "challenge": "%%",
        "attestation": {"credentialId": 3},
    }
    assert invalid_fields(client.post("/auth/credentials", json=body)) == {
        "challenge",
        "attestation.credentialId",
        "attestation.clientDataJson",
        "attestation.attestationObject",
    }


def test_a_garbage_attestation_is_a_401(client: httpx.Client) -> None:
    body = {
        "customerId": customer(client),
        "type": "PASSKEY",
        "challenge": b64url(b"c"),
        "attestation": {
            "credentialId": "AAAA",
            "clientDataJson": b64url(b"{}"),
            "attestationObject": "AAAA",
        },
    }
    assert client.post("/auth/credentials", json=body).status_code == 401


@pytest.mark.parametrize(
    ("change", "reason"),
    [
        ({"origin": "https://evil.example"}, "origin mismatch"),
        ({"rp_id": "evil.example"}, "rp id mismatch"),
        ({"flags": 0x04}, "user not present"),
        ({"signer": "other"}, "bad signature"),
        ({"tamper": True}, "bad signature"),
        ({"counter": 0}, "counter did not increase"),
    ],
)
def test_assertion_refusals(client: httpx.Client, change: dict[str, Any], reason: str) -> None:
    key = passkey(client)
    if change.get("signer") == "other":
        change = {"signer": new_key()}
    answer = challenge(client, key, new_key())
    assert (
        _reason(
            verify(client, key, answer, key.authenticator.assertion(answer["challenge"], **change))
        )
        == reason
    )


def test_a_wrong_challenge_is_refused(client: httpx.Client) -> None:
    key = passkey(client)
    answer = challenge(client, key, new_key())
    assertion = key.authenticator.assertion(b64url(b"not the challenge"))
    assert _reason(verify(client, key, answer, assertion)) == "challenge mismatch"


def test_the_counter_must_increase(client: httpx.Client) -> None:
    key = passkey(client)
    answer = challenge(client, key, new_key())
    assert (
        verify(
            client, key, answer, key.authenticator.assertion(answer["challenge"], counter=5)
        ).status_code
        == 200
    )
    answer = challenge(client, key, new_key())
    replay = key.authenticator.assertion(answer["challenge"], counter=5)
    assert _reason(verify(client, key, answer, replay)) == "counter did not increase"


def test_an_unknown_credential_is_refused(client: httpx.Client) -> None:
    key = passkey(client)
    answer = challenge(client, key, new_key())
    assertion = SoftAuthenticator().assertion(answer["challenge"])
    assert _reason(verify(client, key, answer, assertion)) == "unknown credential"


def test_a_challenge_is_single_use_and_needs_its_request_id(client: httpx.Client) -> None:
    key = passkey(client)
    answer = challenge(client, key, new_key())
    assertion = key.authenticator.assertion(answer["challenge"])
    no_id = client.post(
        f"/auth/credentials/{key.credential['id']}/verify", json={"assertion": assertion}
    )
    assert _reason(no_id) == "missing request id"
    foreign = verify(client, key, {"requestId": "nope"}, assertion)
    assert _reason(foreign) == "unknown request id"
    assert verify(client, key, answer, assertion).status_code == 200
    again = verify(client, key, answer, key.authenticator.assertion(answer["challenge"]))
    assert _reason(again) == "challenge already used"


def test_the_legacy_literal_is_accepted(client: httpx.Client) -> None:
    key = passkey(client)
    answer = challenge(client, key, new_key())
    literal = {
        "credentialId": b64url(key.authenticator.credential_id),
        "signature": "sandbox-valid-passkey-signature",
    }
    assert verify(client, key, answer, literal).status_code == 200


def test_challenge_needs_a_client_public_key(client: httpx.Client) -> None:
    key = passkey(client)
    response = client.post(
        f"/auth/credentials/{key.credential['id']}/challenge", json={"clientPublicKey": "04zz"}
    )
    assert invalid_fields(response) == {"clientPublicKey"}
    missing = client.post(f"/auth/credentials/{key.credential['id']}/challenge")
    assert invalid_fields(missing) == {"clientPublicKey"}


def test_a_malformed_assertion_is_invalid_input(client: httpx.Client) -> None:
    key = passkey(client)
    answer = challenge(client, key, new_key())
    response = verify(client, key, answer, {"credentialId": 1, "signature": "!!"})
    assert invalid_fields(response) == {
        "assertion.credentialId",
        "assertion.signature",
        "assertion.clientDataJson",
        "assertion.authenticatorData",
    }
