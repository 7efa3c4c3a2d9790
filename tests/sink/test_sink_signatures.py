"""§5 Authentication, webhook signature: base64 header, SHA-256 of the exact body, the key."""

from __future__ import annotations

import base64
import hashlib
from pathlib import Path

import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, ed25519, padding, rsa, utils, x25519

from conformance.webhooks.sink import load_public_key, verify_signature
from conformance.webhooks.sink.tls import generate_tls_material

from .sink_helpers import envelope, sign_ec

BODY = envelope("OUTGOING_PAYMENT.COMPLETED", "Transaction:0b6c1d0e-2f43-4a57-9d33-3b0c7a2e5f10")


def _pem(key: ec.EllipticCurvePrivateKey | rsa.RSAPrivateKey | ed25519.Ed25519PrivateKey) -> bytes:
    return key.public_key().public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
    )


def test_a_signed_delivery_verifies(ec_key: ec.EllipticCurvePrivateKey) -> None:
    check = verify_signature(ec_key.public_key(), BODY, sign_ec(ec_key, BODY))
    assert check.valid, check.reason
    assert "secp256r1" in check.reason


def test_one_changed_byte_of_the_body_is_rejected(ec_key: ec.EllipticCurvePrivateKey) -> None:
    header = sign_ec(ec_key, BODY)
    tampered = bytearray(BODY)
    tampered[len(tampered) // 2] ^= 0x01
    check = verify_signature(ec_key.public_key(), bytes(tampered), header)
    assert not check.valid
    assert "does not verify over SHA-256 of the body" in check.reason


def test_a_signature_made_with_another_key_is_rejected(
    ec_key: ec.EllipticCurvePrivateKey, other_ec_key: ec.EllipticCurvePrivateKey
) -> None:
    check = verify_signature(ec_key.public_key(), BODY, sign_ec(other_ec_key, BODY))
    assert not check.valid
    assert "does not verify" in check.reason


@pytest.mark.parametrize(
    ("header", "reason"),
    [
        (None, "missing X-Service-Signature header"),
        ("", "empty X-Service-Signature header"),
        ("   ", "empty X-Service-Signature header"),
        ("%%% not base64 %%%", "X-Service-Signature is not valid base64"),
        (base64.b64encode(b"\x30\x02garbage that is no DER").decode(), "does not verify"),
    ],
)
def test_missing_or_garbage_headers_are_rejected_without_raising(
    ec_key: ec.EllipticCurvePrivateKey, header: str | None, reason: str
) -> None:
    check = verify_signature(ec_key.public_key(), BODY, header)
    assert not check.valid
    assert reason in check.reason


def test_a_raw_r_s_signature_is_accepted_as_the_other_ecdsa_encoding(
    ec_key: ec.EllipticCurvePrivateKey,
) -> None:
    der = base64.b64decode(sign_ec(ec_key, BODY))
    r, s = utils.decode_dss_signature(der)
    raw = r.to_bytes(32, "big") + s.to_bytes(32, "big")
    check = verify_signature(ec_key.public_key(), BODY, base64.b64encode(raw).decode())
    assert check.valid, check.reason
    assert "raw r||s" in check.reason


def test_url_safe_base64_without_padding_is_decoded(ec_key: ec.EllipticCurvePrivateKey) -> None:
    header = base64.urlsafe_b64encode(base64.b64decode(sign_ec(ec_key, BODY))).decode()
    assert verify_signature(ec_key.public_key(), BODY, header.rstrip("=")).valid


def test_rsa_pkcs1v15_over_the_digest() -> None:
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    digest = hashlib.sha256(BODY).digest()
    signature = key.sign(digest, padding.PKCS1v15(), utils.Prehashed(hashes.SHA256()))
    header = base64.b64encode(signature).decode()
    assert verify_signature(key.public_key(), BODY, header).valid
    rejected = verify_signature(key.public_key(), BODY + b" ", header)
    assert not rejected.valid
    assert "RSA 2048" in rejected.reason


def test_ed25519_over_the_body() -> None:
    key = ed25519.Ed25519PrivateKey.generate()
    header = base64.b64encode(key.sign(BODY)).decode()
    check = verify_signature(key.public_key(), BODY, header)
    assert check.valid, check.reason
    assert not verify_signature(key.public_key(), BODY[:-1], header).valid


def test_keys_load_from_pem_text_bytes_and_path(
    ec_key: ec.EllipticCurvePrivateKey, tmp_path: Path
) -> None:
    pem = _pem(ec_key)
    path = tmp_path / "webhook.pem"
    path.write_bytes(pem)
    header = sign_ec(ec_key, BODY)
    escaped = pem.decode().strip().replace("\n", "\\n")  # as found in environment variables
    for source in (pem, pem.decode(), str(path), path, escaped):
        key = load_public_key(source)
        assert verify_signature(key, BODY, header).valid, source


def test_a_certificate_pem_yields_its_subject_key() -> None:
    material = generate_tls_material(["localhost"])
    key = load_public_key(material.ca_pem)
    expected = x509.load_pem_x509_certificate(material.ca_pem).public_key()
    assert key == expected


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("", "the value is empty"),
        ("not a key and not a file", "is neither PEM text"),
        (b"not PEM at all", "are not PEM"),
        ("-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----\n", "does not parse"),
    ],
)
def test_garbage_keys_raise_a_clear_value_error(value: str | bytes, message: str) -> None:
    with pytest.raises(ValueError, match="webhook public key") as info:
        load_public_key(value)
    assert message in str(info.value)


def test_a_file_without_pem_and_an_unsupported_key_type_are_named(tmp_path: Path) -> None:
    junk = tmp_path / "junk.txt"
    junk.write_text("hello")
    with pytest.raises(ValueError, match="holds no PEM block"):
        load_public_key(junk)
    x_pem = (
        x25519.X25519PrivateKey.generate()
        .public_key()
        .public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)
    )
    with pytest.raises(ValueError, match="supported key types are EC"):
        load_public_key(x_pem)
