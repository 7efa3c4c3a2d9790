"""The suite's opening of a tokenize payload against the reference's sealing (a round trip),
and hostile payloads: every malformed value is a reason, never an exception."""

from __future__ import annotations

import base64
import json

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa

from conformance.cards.crypto import compact_jwes, opaque_strings, open_jwe
from reference.cards.tokenize import encrypt_jwe


@pytest.fixture(scope="module")
def key() -> rsa.RSAPrivateKey:
    return rsa.generate_private_key(public_exponent=65537, key_size=2048)


def _pem(key: rsa.RSAPrivateKey) -> str:
    return key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    ).decode()


def test_a_sealed_payload_opens_with_the_provider_key(key: rsa.RSAPrivateKey) -> None:
    token = encrypt_jwe(key.public_key(), b'{"cardId":"Card:x"}')
    assert compact_jwes({"encryptedPayload": token}) == [token]
    plain, why = open_jwe(token, _pem(key))
    assert json.loads(plain or b"") == {"cardId": "Card:x"}, why


def test_another_key_does_not_open_it(key: rsa.RSAPrivateKey) -> None:
    other = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    plain, why = open_jwe(encrypt_jwe(other.public_key(), b"{}"), _pem(key))
    assert plain is None and "does not open" in why


@pytest.mark.parametrize(
    "token",
    [
        "",
        "a.b.c.d.e",
        "!!!.@@@.###.$$$.%%%",
        base64.urlsafe_b64encode(b"[1]").decode() + ".AA.AA.AA.AA",
        base64.urlsafe_b64encode(b'{"alg":"RSA-OAEP-256","enc":"A256GCM"}').decode().rstrip("=")
        + ".AAAA.AAAA.AAAA.AAAA",
    ],
)
def test_malformed_payloads_are_reasons_not_exceptions(key: rsa.RSAPrivateKey, token: str) -> None:
    plain, why = open_jwe(token, _pem(key))
    assert plain is None and why


def test_a_bad_key_is_a_reason() -> None:
    assert open_jwe("a.b.c.d.e", "not a pem")[0] is None
    assert opaque_strings({"a": ["x" * 40, 3, None]}) == ["x" * 40]
    card_id = "Card:0b6a5d8e-7c4f-4e4a-9d61-8f3b2a1c0d9e"
    sent = {"walletAccountId": "y" * 40}
    assert opaque_strings({"cardId": card_id, "echo": "y" * 40, "note": "a b" * 20}, sent) == []
