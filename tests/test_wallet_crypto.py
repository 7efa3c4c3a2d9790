"""Units of the wallet client's crypto: HPKE against RFC 9180, keys and signatures, the soft
WebAuthn authenticator against an independent verifier (``webauthn``), tokens, bundles."""

from __future__ import annotations

import base64
import json
import os

import pytest
import webauthn
from cryptography.hazmat.primitives.asymmetric import ec
from pyhpke import AEADId, CipherSuite, KDFId, KEMId
from webauthn.helpers.exceptions import InvalidAuthenticationResponse

from conformance.ground.public_keys import public_key_from_hex
from conformance.ground.secrets import known_secrets
from conformance.wallet.authenticator import (
    SoftAuthenticator,
    Tamper,
    b64url,
    b64url_decode,
    browser_credential,
)
from conformance.wallet.bundles import (
    BundleProblem,
    open_sealed_bundle,
    otp_bundle,
    read_signed_bundle,
    target_public_key,
)
from conformance.wallet.format import WalletFormat, wallet_format
from conformance.wallet.hpke import HpkeError, HpkeParams, open_sealed, seal
from conformance.wallet.keys import WalletKey, verify_der_hex
from conformance.wallet.tokens import Identity, TokenMinter, nonce_for

# RFC 9180 Appendix A.3.1: DHKEM(P-256, HKDF-SHA256), HKDF-SHA256, AES-128-GCM, base mode.
RFC = {
    "info": "4f6465206f6e2061204772656369616e2055726e",
    "ikmE": "4270e54ffd08d79d5928020af4686d8f6b7d35dbe470265f1f5aa22816ce860e",
    "pkEm": "04a92719c6195d5085104f469a8b9814d5838ff72b60501e2c4466e5e67b325ac98536d7b61a1af4b78e"
    "5b7f951c0900be863c403ce65c9bfcb9382657222d18c4",
    "ikmR": "668b37171f1072f3cf12ea8a236a45df23fc13b82af3609ad1e354f6ef817550",
    "pkRm": "04fe8c19ce0905191ebc298a9245792531f26f0cece2460639e8bc39cb7f706a826a779b4cf969b8a0e5"
    "39c7f62fb3d30ad6aa8f80e30f1d128aafd68a2ce72ea0",
    "skRm": "f3ce7fdae57e1a310d87f1ebbde6f328be0a99cdbcadf4d6589cf29de4b8ffd2",
    "pt": "4265617574792069732074727574682c20747275746820626561757479",
    "aad": "436f756e742d30",
    "ct": "5ad590bb8baa577f8619db35a36311226a896e7342a6d836d8b7bcd2f20b6c7f9076ac232e3ab2523f39"
    "513434",
}
RFC_PARAMS = HpkeParams(bytes.fromhex(RFC["info"]), "none", "AES-128-GCM")


def test_rfc9180_base_vector_encrypts_to_the_published_ciphertext():
    suite = CipherSuite.new(KEMId.DHKEM_P256_HKDF_SHA256, KDFId.HKDF_SHA256, AEADId.AES128_GCM)
    ephemeral = suite.kem.derive_key_pair(bytes.fromhex(RFC["ikmE"]))
    receiver = suite.kem.derive_key_pair(bytes.fromhex(RFC["ikmR"]))
    assert receiver.public_key.to_public_bytes().hex() == RFC["pkRm"]
    enc, sender = suite.create_sender_context(receiver.public_key, RFC_PARAMS.info, eks=ephemeral)
    assert enc.hex() == RFC["pkEm"]
    assert sender.seal(bytes.fromhex(RFC["pt"]), bytes.fromhex(RFC["aad"])).hex() == RFC["ct"]


def test_rfc9180_base_vector_opens_with_the_receiver_scalar():
    receiver = WalletKey.from_private_bytes(bytes.fromhex(RFC["skRm"]))
    assert receiver.public_hex() == RFC["pkRm"]
    enc, ct, aad = (bytes.fromhex(RFC[k]) for k in ("pkEm", "ct", "aad"))
    assert open_sealed(receiver, enc, ct, RFC_PARAMS, aad=aad).hex() == RFC["pt"]


def test_hpke_round_trip_with_the_reference_parameters_and_a_wrong_key_fails():
    receiver, other = WalletKey.generate(), WalletKey.generate()
    enc, ct = seal(receiver.public_bytes(), b"session key")
    assert len(enc) == 65
    assert open_sealed(receiver, enc, ct) == b"session key"
    with pytest.raises(HpkeError):
        open_sealed(other, enc, ct)
    with pytest.raises(HpkeError):
        open_sealed(receiver, enc, ct[:-1] + bytes([ct[-1] ^ 1]))
    with pytest.raises(HpkeError):
        open_sealed(receiver, enc, ct, HpkeParams(info=b"other"))
    with pytest.raises(HpkeError):
        open_sealed(receiver, b"\x04" + bytes(10), ct)


def test_keys_encode_both_point_forms_and_sign_der_hex():
    key = WalletKey.generate()
    assert key.public_hex().startswith("04") and len(key.public_hex()) == 130
    assert key.public_hex(compressed=True)[:2] in ("02", "03")
    assert len(key.public_hex(compressed=True)) == 66
    for form in (key.public_hex(), key.public_hex(compressed=True)):
        parsed = public_key_from_hex(form)
        assert parsed is not None and parsed.public_numbers() == key.public.public_numbers()
    signature = key.sign("payload")
    assert verify_der_hex(key.public, signature, b"payload")
    assert not verify_der_hex(key.public, signature, b"other")
    assert not verify_der_hex(WalletKey.generate().public, signature, b"payload")
    assert not verify_der_hex(key.public, "zz", b"payload")
    assert public_key_from_hex("04" + "00" * 64) is None and public_key_from_hex(7) is None


def test_private_keys_are_registered_and_never_in_a_repr():
    key = WalletKey.generate()
    assert key.private_bytes().hex() in known_secrets()
    assert key.private_bytes().hex() not in repr(key)
    restored = WalletKey.from_private_bytes(key.private_bytes())
    assert restored.public_hex() == key.public_hex()
    with pytest.raises(ValueError):
        WalletKey.from_private_bytes(b"\x01" * 31)


RP_ID, ORIGIN = "wallet.example.test", "https://wallet.example.test"


def _registered():
    authenticator = SoftAuthenticator(RP_ID, ORIGIN)
    challenge = os.urandom(32)
    verified = webauthn.verify_registration_response(
        credential=browser_credential(authenticator.attestation(b64url(challenge))),
        expected_challenge=challenge,
        expected_rp_id=RP_ID,
        expected_origin=ORIGIN,
    )
    return authenticator, verified


def _authenticate(authenticator, verified, tamper=None, count=None):
    challenge = os.urandom(32)
    assertion = authenticator.assertion(b64url(challenge), tamper)
    return webauthn.verify_authentication_response(
        credential=browser_credential(assertion),
        expected_challenge=challenge,
        expected_rp_id=RP_ID,
        expected_origin=ORIGIN,
        credential_public_key=verified.credential_public_key,
        credential_current_sign_count=verified.sign_count if count is None else count,
    )


def test_the_soft_authenticator_registers_and_asserts_for_an_independent_verifier():
    authenticator, verified = _registered()
    assert verified.credential_id == authenticator.raw_id and verified.sign_count == 1
    first = _authenticate(authenticator, verified)
    second = _authenticate(authenticator, verified, count=first.new_sign_count)
    assert second.new_sign_count > first.new_sign_count > 1


@pytest.mark.parametrize(
    "tamper",
    [
        Tamper(challenge=b64url(b"another challenge")),
        Tamper(origin="https://evil.example.test"),
        Tamper(rp_id="evil.example.test"),
        Tamper(user_present=False),
        Tamper(bad_signature=True),
        Tamper(counter=1),
    ],
    ids=["challenge", "origin", "rp-id", "user-presence", "signature", "counter"],
)
def test_each_hostile_assertion_is_refused_by_an_independent_verifier(tamper):
    authenticator, verified = _registered()
    _authenticate(authenticator, verified)  # counter 2
    with pytest.raises(InvalidAuthenticationResponse):
        _authenticate(authenticator, verified, tamper, count=2)


def test_a_passkey_is_named_by_its_credential_id_in_either_base64_alphabet():
    authenticator = SoftAuthenticator(RP_ID, ORIGIN)
    authenticator.raw_id = bytes(range(250, 256)) + bytes(10)  # "+" and "/" in base64
    raw = authenticator.raw_id
    for named in (
        authenticator.credential_id,
        base64.urlsafe_b64encode(raw).decode(),  # padded
        base64.b64encode(raw).decode(),
        base64.b64encode(raw).decode().rstrip("="),
    ):
        assert authenticator.is_named_by(named), named
    other = SoftAuthenticator(RP_ID, ORIGIN)
    for named in (
        other.credential_id,
        "",
        None,
        42,
        "not base64 !",
        authenticator.credential_id[1:],
    ):
        assert not authenticator.is_named_by(named), named


def _segments(token):
    return [
        json.loads(base64.urlsafe_b64decode(s + "=" * (-len(s) % 4))) for s in token.split(".")[:2]
    ]


def test_tokens_carry_the_claims_and_an_es256_signature():
    minter = TokenMinter()
    identity = Identity("https://oidc.example.test", "client-1")
    token = minter.for_identity(identity, nonce=nonce_for("04ab"))
    header, claims = _segments(token)
    assert header["alg"] == "ES256"
    assert {claims["iss"], claims["aud"], claims["sub"]} == {
        identity.iss,
        identity.aud,
        identity.sub,
    }
    assert claims["exp"] > claims["iat"] and claims["nonce"] == nonce_for("04ab")
    assert len(b64url_decode(token.split(".")[2])) == 64
    unsigned = minter.token(minter.claims(identity, exp=None), alg="none")
    assert unsigned.endswith(".") and _segments(unsigned)[0]["alg"] == "none"
    assert "exp" not in _segments(unsigned)[1]


def _signed_bundle(enclave, data, signer=None):
    raw = json.dumps(data).encode()
    return json.dumps({
        "version": "v1.0.0",
        "data": raw.hex(),
        "dataSignature": (signer or enclave).sign(raw),
        "enclaveQuorumPublic": enclave.public_hex(),
    })  # fmt: skip


def test_signed_bundles_are_checked_against_the_enclave_key():
    enclave, fmt = WalletKey.generate(), WalletFormat()
    target = WalletKey.generate()
    bundle = _signed_bundle(enclave, {"targetPublic": target.public_hex()})
    data = read_signed_bundle(bundle, enclave.public, fmt)
    assert target_public_key(data).public_numbers() == target.public.public_numbers()
    forged = _signed_bundle(enclave, {"targetPublic": target.public_hex()}, WalletKey.generate())
    with pytest.raises(BundleProblem, match="dataSignature"):
        read_signed_bundle(forged, enclave.public, fmt)
    for broken in ("not json", "[]", json.dumps({"data": "zz"}), json.dumps({"data": 1})):
        with pytest.raises(BundleProblem):
            read_signed_bundle(broken, enclave.public, fmt)


def test_an_otp_bundle_opens_for_the_target_and_a_sealed_bundle_for_the_client():
    fmt, target, tek = WalletFormat(), WalletKey.generate(), WalletKey.generate()
    sealed = json.loads(otp_bundle(target.public, "000000", tek.public_hex(compressed=True), fmt))
    plain = open_sealed(
        target, bytes.fromhex(sealed["encappedPublic"]), bytes.fromhex(sealed["ciphertext"])
    )
    assert json.loads(plain) == {
        "otp_code": "000000",
        "public_key": tek.public_hex(compressed=True),
    }
    enc, ct = seal(tek.public_bytes(), b"\x01" * 32)
    data = {"encappedPublic": enc.hex(), "ciphertext": ct.hex()}
    assert open_sealed_bundle(data, tek, fmt) == b"\x01" * 32
    with pytest.raises(BundleProblem):
        open_sealed_bundle(data, target, fmt)
    with pytest.raises(BundleProblem):
        open_sealed_bundle({"encappedPublic": 5}, tek, fmt)


def test_format_overrides_are_validated():
    assert wallet_format(None) == WalletFormat()
    assert wallet_format({"hpke_info": "x"}).hpke.info == b"x"
    assert wallet_format({"signature_encoding": "der-base64"}).encode_signature(b"\x01") == "AQ=="
    for bad in ({"nope": 1}, {"hpke_aad": "other"}, {"signature_encoding": "raw"}):
        with pytest.raises(ValueError):
            wallet_format(bad)
    assert isinstance(
        public_key_from_hex(WalletKey.generate().public_hex()), ec.EllipticCurvePublicKey
    )
