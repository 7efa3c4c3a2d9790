"""§5 Authentication — embedded wallet, items 1, 5 and 6: EMAIL_OTP and SMS_OTP.

The client HPKE-encrypts ``{otp_code, public_key}`` (its compressed TEK key) to the
challenge's ``otpEncryptionTargetBundle``; verify answers 202 with ``payloadToSign`` and
``requestId``; the retry signed by the TEK key completes it. Every hostile bundle or retry
must be refused with 401 and hand out no session."""

from __future__ import annotations

import json

import pytest

from conformance.contract import clauses
from conformance.contract.error_bodies import reason_of
from conformance.contract.failures import check
from conformance.wallet.flows import item
from conformance.wallet.keys import WalletKey

pytestmark = [
    pytest.mark.resource("Authentication"),
    pytest.mark.writes,
    pytest.mark.feature("embedded-wallet"),
]


@pytest.fixture(scope="module")
def otp(embedded_wallet):
    """A customer whose first credential is an EMAIL_OTP one."""
    customer = embedded_wallet.customer()
    return embedded_wallet.credential(customer, "EMAIL_OTP")


def _verify_path(credential):
    return f"/auth/credentials/{credential.id}/verify"


@pytest.mark.requirement(
    "WALLET-OTP-HPKE-BUNDLE", "WALLET-OTP-SIGNED-RETRY", "WALLET-SANDBOX-OTP-CODE"
)
@pytest.mark.parametrize("kind", ["EMAIL_OTP", "SMS_OTP"])
def test_an_otp_bundle_with_the_sandbox_code_opens_a_session_by_the_signed_retry(
    embedded_wallet, kind
):
    """Challenge, seal {otp_code: 000000, public_key: compressed TEK} to the target key,
    verify (202), sign payloadToSign with the TEK key and retry: 200 and a session."""
    customer = embedded_wallet.customer()
    credential = embedded_wallet.credential(customer, kind)
    session = embedded_wallet.otp_session(credential)
    assert session.key is not None


@pytest.mark.requirement("WALLET-EMAIL-OTP-SESSION-KEY")
def test_for_email_otp_the_tek_key_is_the_session_signing_key(embedded_wallet):
    customer = embedded_wallet.customer()
    session = embedded_wallet.otp_session(embedded_wallet.credential(customer, "EMAIL_OTP"))
    account = embedded_wallet.wallet_account(customer["id"])
    embedded_wallet.still_signs(
        session,
        account["id"],
        clauses.AUTHENTICATION
        + " — embedded wallet, item 1: for EMAIL_OTP the TEK private key is the session key",
    )


@pytest.mark.requirement("WALLET-SANDBOX-OTP-WRONG-CODE")
def test_a_wrong_otp_code_is_refused_with_invalid_otp_code(embedded_wallet, otp):
    target, challenge_id = embedded_wallet.otp_challenge(otp)
    bundle = embedded_wallet.otp_bundle(target, WalletKey.generate(), code="123456")
    response = embedded_wallet.otp_verify(otp, bundle, challenge_id)
    embedded_wallet.refused(response, item(5), "a decrypted OTP code other than 000000 is refused")
    reason = reason_of(response.json)
    check(
        reason == "Invalid OTP code",
        item(5),
        "any other decrypted code gives 401 UNAUTHORIZED with reason 'Invalid OTP code'",
        expected="Invalid OTP code",
        observed=reason,
        exchange=response.exchange,
    )


@pytest.mark.requirement("WALLET-SANDBOX-REAL-HPKE", "WALLET-OTP-HPKE-BUNDLE")
def test_a_tampered_ciphertext_is_refused(embedded_wallet, otp):
    target, challenge_id = embedded_wallet.otp_challenge(otp)
    sealed = json.loads(embedded_wallet.otp_bundle(target, WalletKey.generate()))
    field = embedded_wallet.format.sealed_ciphertext_field
    ciphertext = bytearray(bytes.fromhex(sealed[field]))
    ciphertext[0] ^= 0x01
    sealed[field] = ciphertext.hex()
    response = embedded_wallet.otp_verify(otp, json.dumps(sealed), challenge_id)
    embedded_wallet.refused(
        response,
        item(5),
        "real HPKE runs in the sandbox: a tampered ciphertext does not open",
        requirement="WALLET-SANDBOX-REAL-HPKE",
    )


@pytest.mark.requirement("WALLET-SANDBOX-REAL-HPKE")
def test_a_bundle_sealed_to_another_key_is_refused(embedded_wallet, otp):
    _, challenge_id = embedded_wallet.otp_challenge(otp)
    elsewhere = WalletKey.generate().public
    bundle = embedded_wallet.otp_bundle(elsewhere, WalletKey.generate())
    response = embedded_wallet.otp_verify(otp, bundle, challenge_id)
    embedded_wallet.refused(
        response,
        item(5),
        "real HPKE runs in the sandbox: a bundle not encrypted to otpEncryptionTargetBundle "
        "is refused",
    )


@pytest.mark.requirement("WALLET-SANDBOX-REAL-HPKE")
def test_a_malformed_encapsulated_key_is_refused_not_a_server_error(embedded_wallet, otp):
    """An encapsulated key that is no point of P-256: a refusal (401, or 400 for a malformed
    request), never a 5xx."""
    target, challenge_id = embedded_wallet.otp_challenge(otp)
    sealed = json.loads(embedded_wallet.otp_bundle(target, WalletKey.generate()))
    sealed[embedded_wallet.format.sealed_enc_field] = "04" + "00" * 64
    response = embedded_wallet.otp_verify(otp, json.dumps(sealed), challenge_id)
    embedded_wallet.refused(
        response,
        item(6),
        "a bundle whose encapsulated key is not a P-256 point fails authentication; it is "
        "refused, not answered with a server error",
        also=(400,),
    )


@pytest.mark.requirement("WALLET-OTP-COMPRESSED-KEY")
def test_an_uncompressed_tek_key_is_refused(embedded_wallet, otp):
    target, challenge_id = embedded_wallet.otp_challenge(otp)
    bundle = embedded_wallet.otp_bundle(target, WalletKey.generate(), compressed=False)
    response = embedded_wallet.otp_verify(otp, bundle, challenge_id)
    embedded_wallet.refused(
        response,
        item(1),
        "the bundle's public_key is the compressed TEK key (prefix 02 or 03); an "
        "uncompressed one (04...) is refused",
    )


def _verified(embedded_wallet, credential):
    """A first verify answered 202: (body sent, payload, request id, TEK key)."""
    target, challenge_id = embedded_wallet.otp_challenge(credential)
    tek = WalletKey.generate()
    body = {"encryptedOtpBundle": embedded_wallet.otp_bundle(target, tek)}
    headers = {"Request-Id": challenge_id} if challenge_id else {}
    first = embedded_wallet.first_call("POST", _verify_path(credential), body, **headers)
    payload, request_id = embedded_wallet.signature_challenge(first, "the OTP verify")
    return body, payload, request_id, tek


@pytest.mark.requirement("WALLET-SIGNATURE-P256-OVER-PAYLOAD", "WALLET-OTP-SIGNED-RETRY")
@pytest.mark.parametrize("forgery", ["another key", "other bytes"])
def test_an_otp_retry_signed_wrongly_is_refused(embedded_wallet, otp, forgery):
    body, payload, request_id, tek = _verified(embedded_wallet, otp)
    if forgery == "another key":
        signature = embedded_wallet.sign(WalletKey.generate(), payload)
    else:
        signature = embedded_wallet.sign(tek, payload + " ")
    answer = embedded_wallet.retry(
        "POST", _verify_path(otp), body, signature=signature, request_id=request_id
    )
    embedded_wallet.refused(
        answer,
        item(1),
        f"the OTP verify retry must be signed by the TEK key over payloadToSign; a signature "
        f"by {forgery} is refused and opens no session",
        requirement="WALLET-SIGNATURE-P256-OVER-PAYLOAD",
    )


@pytest.mark.requirement("WALLET-OTP-SIGNED-RETRY")
def test_an_otp_retry_without_request_id_is_refused(embedded_wallet, otp):
    body, payload, _, tek = _verified(embedded_wallet, otp)
    answer = embedded_wallet.retry(
        "POST", _verify_path(otp), body, signature=embedded_wallet.sign(tek, payload),
        request_id=None,
    )  # fmt: skip
    embedded_wallet.refused(
        answer, item(1), "the OTP verify retry carries Request-Id; without it it is refused"
    )


@pytest.mark.requirement("WALLET-OTP-SIGNED-RETRY")
def test_an_otp_retry_with_the_request_id_of_another_operation_is_refused(embedded_wallet, otp):
    """The retry of one verify carries the request id (and a valid signature of the
    payload) of another verify: the id is bound to its own operation and body."""
    body, _, _, _ = _verified(embedded_wallet, otp)
    _, other_payload, other_id, other_tek = _verified(embedded_wallet, otp)
    answer = embedded_wallet.retry(
        "POST", _verify_path(otp), body,
        signature=embedded_wallet.sign(other_tek, other_payload), request_id=other_id,
    )  # fmt: skip
    embedded_wallet.refused(
        answer,
        item(1),
        "the retry's Request-Id is the requestId this verify returned; one from another "
        "verify is refused",
    )
