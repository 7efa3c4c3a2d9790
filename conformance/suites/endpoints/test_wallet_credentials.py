"""§4 Cards, stablecoins, agents, auth, sandbox (the /auth rows) and §4 Accounts (export,
privacy update): each embedded-wallet endpoint does what its row says, driven by the
suite's wallet client. Revocations are shown by the revoked credential or session no
longer working."""

from __future__ import annotations

import pytest

from conformance.contract import clauses
from conformance.contract.failures import check
from conformance.wallet.flows import ENDPOINT, item
from conformance.wallet.keys import WalletKey

pytestmark = [
    pytest.mark.resource("Authentication"),
    pytest.mark.writes,
    pytest.mark.feature("embedded-wallet"),
]

ACCOUNTS = clauses.ACCOUNTS_ENDPOINTS


@pytest.mark.requirement("WALLET-CREDENTIAL-REGISTER")
@pytest.mark.parametrize("kind", ["EMAIL_OTP", "SMS_OTP", "PASSKEY", "OAUTH"])
def test_a_first_credential_of_each_type_is_registered(embedded_wallet, kind):
    customer = embedded_wallet.customer()
    credential = embedded_wallet.credential(customer, kind)
    assert credential.id


@pytest.mark.requirement("WALLET-CREDENTIAL-REGISTER", "WALLET-SIGNATURE-REQUIRED")
def test_a_further_credential_is_registered_by_the_signed_retry(embedded_wallet):
    customer = embedded_wallet.customer()
    session = embedded_wallet.otp_session(embedded_wallet.credential(customer, "EMAIL_OTP"))
    further = embedded_wallet.credential(customer, "EMAIL_OTP", signer=session)
    embedded_wallet.otp_session(further)


@pytest.mark.requirement("WALLET-CHALLENGE-OTP")
@pytest.mark.parametrize("kind", ["EMAIL_OTP", "SMS_OTP"])
def test_the_challenge_of_an_otp_credential_returns_the_target_bundle(
    embedded_wallet, advisory, kind
):
    customer = embedded_wallet.customer()
    target, _ = embedded_wallet.otp_challenge(embedded_wallet.credential(customer, kind))
    assert target is not None
    if embedded_wallet.enclave_key() is None and embedded_wallet.format.enclave_signed_bundles:
        advisory(
            "the target bundle's enclave signature was not checked: the profile has no "
            "enclave public key (--wallet-enclave-public-key); the bundle format is not shown"
        )


@pytest.mark.requirement("WALLET-CHALLENGE-PASSKEY")
def test_the_challenge_of_a_passkey_returns_challenge_credential_id_and_request_id(
    embedded_wallet,
):
    customer = embedded_wallet.customer()
    credential = embedded_wallet.credential(customer, "PASSKEY")
    challenge, request_id = embedded_wallet.passkey_challenge(credential, WalletKey.generate())
    assert challenge and request_id


@pytest.mark.requirement("WALLET-VERIFY-OTP-202")
def test_an_otp_verify_answers_202_with_the_payload_to_sign(embedded_wallet):
    customer = embedded_wallet.customer()
    credential = embedded_wallet.credential(customer, "EMAIL_OTP")
    target, challenge_id = embedded_wallet.otp_challenge(credential)
    bundle = embedded_wallet.otp_bundle(target, WalletKey.generate())
    response = embedded_wallet.otp_verify(credential, bundle, challenge_id)
    embedded_wallet.signature_challenge(response, "an OTP verify with a valid bundle")


@pytest.mark.requirement("WALLET-VERIFY-SESSION-KEY")
@pytest.mark.parametrize("kind", ["PASSKEY", "OAUTH"])
def test_the_sealed_session_key_decrypts_into_a_working_signing_key(embedded_wallet, kind):
    customer = embedded_wallet.customer()
    session = embedded_wallet.session(embedded_wallet.credential(customer, kind))
    account = embedded_wallet.wallet_account(customer["id"])
    embedded_wallet.still_signs(
        session,
        account["id"],
        f"{clauses.AUTHENTICATION} — embedded wallet, item 4: the {kind} session key decrypted "
        "from encryptedSessionSigningKey",
    )


@pytest.mark.requirement("WALLET-CREDENTIAL-DELETE")
@pytest.mark.parametrize("kind", ["EMAIL_OTP", "OAUTH"])
def test_a_revoked_credential_can_no_longer_be_challenged_or_verified(embedded_wallet, kind):
    wallet = embedded_wallet
    customer = wallet.customer()
    credential = wallet.credential(customer, kind)
    session = wallet.session(credential)
    revoked = wallet.revoke_credential(credential, session.key)
    wallet.accepted(revoked.answer, ENDPOINT["delete"], "the signed DELETE revokes the credential")
    if kind == "OAUTH":
        response = wallet.oauth_verify(credential, WalletKey.generate())
    else:
        response = wallet.client.post(f"/auth/credentials/{credential.id}/challenge", json={})
    wallet.refused(
        response,
        ENDPOINT["verify" if kind == "OAUTH" else "challenge"],
        "a revoked credential can no longer be challenged or verified",
        also=(404, 409, 410),
    )


@pytest.mark.requirement("WALLET-SESSION-DELETE")
def test_a_revoked_sessions_signing_key_is_no_longer_accepted(embedded_wallet):
    wallet = embedded_wallet
    customer = wallet.customer()
    session = wallet.otp_session(wallet.credential(customer, "EMAIL_OTP"))
    account_id = wallet.wallet_account(customer["id"])["id"]
    revoked = wallet.revoke_session(session, session.key)
    wallet.accepted(revoked.answer, ENDPOINT["delete session"], "the signed DELETE revokes it")
    before = wallet.current_privacy(customer["id"], account_id)
    signed = wallet.set_privacy(account_id, not bool(before), session.key)
    wallet.refused(
        signed.answer, item(4), "the revoked session's signing key is no longer accepted"
    )
    wallet.privacy_unchanged(customer["id"], account_id, before, "signed by a revoked session")


@pytest.mark.requirement("WALLET-EXPORT")
def test_the_signed_export_returns_the_wallet_key_sealed_to_the_target_key(embedded_wallet):
    wallet = embedded_wallet
    customer = wallet.customer()
    session = wallet.otp_session(wallet.credential(customer, "EMAIL_OTP"))
    account_id = wallet.wallet_account(customer["id"])["id"]
    target = WalletKey.generate()
    signed = wallet.export(account_id, session.key, target)
    wallet.accepted(signed.answer, f"{ACCOUNTS} — POST /internal-accounts/{{id}}/export",
                    "the signed export returns the wallet export")  # fmt: skip
    secret = wallet.opened_export(signed.answer, target)
    check(
        len(secret) > 0,
        f"{ACCOUNTS} — POST /internal-accounts/{{id}}/export",
        "the wallet export opens with the private key of targetPublicKey into the wallet's key",
        observed=f"{len(secret)} bytes",
    )


@pytest.mark.requirement("WALLET-PRIVACY-UPDATE")
def test_the_signed_privacy_update_returns_the_updated_account(embedded_wallet):
    wallet = embedded_wallet
    customer = wallet.customer()
    session = wallet.otp_session(wallet.credential(customer, "EMAIL_OTP"))
    account_id = wallet.wallet_account(customer["id"])["id"]
    wanted = not bool(wallet.current_privacy(customer["id"], account_id))
    signed = wallet.set_privacy(account_id, wanted, session.key)
    clause = f"{ACCOUNTS} — PATCH /internal-accounts/{{id}}"
    wallet.accepted(signed.answer, clause, "a signed wallet privacy update is accepted")
    answer = signed.answer.json if signed.answer.is_json else {}
    shown = wallet.privacy_flag(answer) if isinstance(answer, dict) else None
    check(
        isinstance(answer, dict) and answer.get("id") == account_id and shown == wanted,
        clause,
        "the signed privacy update returns the updated InternalAccount, carrying the flag sent",
        expected={"id": account_id, wallet.format.privacy_field: wanted},
        observed={"id": answer.get("id") if isinstance(answer, dict) else answer,
                  wallet.format.privacy_field: shown},
        exchange=signed.answer.exchange,
    )  # fmt: skip
    read = wallet.current_privacy(customer["id"], account_id)
    check(
        read == wanted,
        clause,
        "the privacy update is kept: the account reads back with the flag sent",
        expected=wanted,
        observed=read,
    )
