"""OAUTH credentials (§5 item 3, item 5; §8 OIDC iat): strict parsing, each claim refused in
turn, identity and nonce binding on verify, and the session key sealed to the client key."""

from __future__ import annotations

import base64
import json
import time
from typing import Any

import httpx
import pytest

from .reference_helpers import RunningSandbox, invalid_fields
from .wallet_client_helpers import (
    b64url,
    claims,
    customer,
    jwt,
    key_from_scalar,
    new_key,
    nonce,
    open_bundle,
    pub_hex,
)


def _register(client: httpx.Client, token: Any, customer_id: str | None = None) -> httpx.Response:
    body = {"customerId": customer_id or customer(client), "type": "OAUTH", "oidcToken": token}
    return client.post("/auth/credentials", json=body)


def _reason(response: httpx.Response) -> str:
    assert response.status_code == 401, response.text
    return str(response.json()["reason"])


def _oauth(client: httpx.Client, sub: str = "user-1") -> dict[str, Any]:
    response = _register(client, jwt(claims(sub)))
    assert response.status_code == 201, response.text
    body: dict[str, Any] = response.json()
    return body


def _verify(
    client: httpx.Client, credential: dict[str, Any], token: str, key_hex: str
) -> httpx.Response:
    return client.post(
        f"/auth/credentials/{credential['id']}/verify",
        json={"oidcToken": token, "clientPublicKey": key_hex},
    )


def test_registration_stores_the_identity(client: httpx.Client) -> None:
    credential = _oauth(client, "alice")
    assert credential["oauth"] == {
        "iss": "https://oidc.sandbox.gpsi.test",
        "aud": "platform-app",
        "sub": "alice",
    }
    listed = _register(client, jwt(claims(aud=["platform-app"])))
    assert listed.status_code == 201 and listed.json()["oauth"]["aud"] == "platform-app"


def test_verify_opens_a_session_bound_to_the_client_key(
    client: httpx.Client, sandbox: RunningSandbox
) -> None:
    credential = _oauth(client, "bob")
    client_key = new_key()
    key_hex = pub_hex(client_key, compressed=True)
    response = _verify(client, credential, jwt(claims("bob", nonce=nonce(key_hex))), key_hex)
    assert response.status_code == 200, response.text
    body = response.json()
    enclave = sandbox.banner["wallet_enclave_public_key"]
    session_key = key_from_scalar(
        open_bundle(body["encryptedSessionSigningKey"], enclave, client_key)
    )
    assert pub_hex(session_key) == body["session"]["publicKey"]


def test_oauth_has_nothing_to_challenge(client: httpx.Client) -> None:
    credential = _oauth(client)
    assert client.post(f"/auth/credentials/{credential['id']}/challenge").status_code == 409


NOW = int(time.time())


@pytest.mark.parametrize(
    ("change", "reason"),
    [
        ({"iss": "https://evil.example"}, "issuer not supported"),
        ({"aud": ["a", "b"]}, "audience"),
        ({"aud": []}, "audience"),
        ({"aud": ""}, "audience"),
        ({"sub": ""}, "subject"),
        ({"sub": None}, "subject"),
        ({"iat": True}, "iat"),
        ({"iat": "1"}, "iat"),
        ({"iat": None}, "iat"),
        ({"exp": None}, "exp"),
    ],
)
def test_each_claim_is_checked(client: httpx.Client, change: dict[str, Any], reason: str) -> None:
    assert reason in _reason(_register(client, jwt(claims(**change))))


def test_freshness(client: httpx.Client) -> None:
    now = int(time.time())
    assert _reason(_register(client, jwt(claims(iat=now - 70)))) == "token too old"
    assert _reason(_register(client, jwt(claims(iat=now + 30)))) == "token issued in the future"
    assert _reason(_register(client, jwt(claims(exp=now - 1)))) == "token expired"
    assert _register(client, jwt(claims(iat=now - 58))).status_code == 201
    assert _register(client, jwt(claims(iat=now + 3))).status_code == 201


def test_alg_none_is_refused(client: httpx.Client) -> None:
    token = jwt(claims(), header={"alg": "none"}).rsplit(".", 1)[0] + "."
    assert _reason(_register(client, token)) == "unsigned token"


def _segment(value: Any) -> str:
    return b64url(json.dumps(value).encode())


@pytest.mark.parametrize(
    "token",
    [
        "sandbox-valid-oidc-token",
        "a.b",
        "a.b.c.d",
        _segment({"alg": "ES256"})
        + "."
        + base64.b64encode(json.dumps(claims()).encode()).decode()
        + "+/.sig",
        "." + _segment(claims()) + ".sig",
        5,
    ],
)
def test_a_malformed_token_is_invalid_input(client: httpx.Client, token: Any) -> None:
    """A token not shaped as three base64url segments: 400 on ``oidcToken`` (the pattern the
    served document declares)."""
    assert invalid_fields(_register(client, token)) == {"oidcToken"}


@pytest.mark.parametrize(
    "token",
    [
        _segment({"alg": "ES256"}) + "." + _segment([1]) + ".sig",
        _segment({"alg": "ES256"}) + "." + b64url(b"not json") + ".sig",
        _segment({"alg": "ES256"}) + "." + _segment(claims()) + ".a",  # 1 char: not base64
    ],
)
def test_a_token_whose_segments_hold_no_json_objects_fails_authentication(
    client: httpx.Client, token: Any
) -> None:
    """Well shaped, but what the segments decode to is no JSON object: 401 with a reason
    (§5 item 6: a malformed token *may* be 400; no document can declare this part)."""
    response = _register(client, token)
    assert response.status_code == 401, response.text
    assert response.json()["reason"]


def test_verify_checks_identity_and_nonce(client: httpx.Client) -> None:
    credential = _oauth(client, "carol")
    key_hex = pub_hex(new_key())
    right = nonce(key_hex)
    for change in (
        {"sub": "mallory"},
        {"aud": "other-app"},
        {"iss": "https://accounts.google.com"},
    ):
        token = jwt(claims(**{"sub": "carol", "nonce": right, **change}))
        assert _reason(_verify(client, credential, token, key_hex)) == "identity mismatch"
    wrong_nonce = jwt(claims("carol", nonce=nonce(pub_hex(new_key()))))
    assert _reason(_verify(client, credential, wrong_nonce, key_hex)) == "nonce mismatch"
    no_nonce = jwt(claims("carol"))
    assert _reason(_verify(client, credential, no_nonce, key_hex)) == "nonce mismatch"
    # the nonce binds the exact string: the upper-case spelling of the same key differs
    upper = jwt(claims("carol", nonce=nonce(key_hex.upper())))
    assert _reason(_verify(client, credential, upper, key_hex)) == "nonce mismatch"
    old = jwt(claims("carol", nonce=right, iat=int(time.time()) - 120))
    assert _reason(_verify(client, credential, old, key_hex)) == "token too old"


def test_verify_lists_every_invalid_field(client: httpx.Client) -> None:
    credential = _oauth(client)
    response = client.post(
        f"/auth/credentials/{credential['id']}/verify",
        json={"oidcToken": "x", "clientPublicKey": "04"},
    )
    assert invalid_fields(response) == {"oidcToken", "clientPublicKey"}
