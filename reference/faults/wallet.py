"""Fault modes of the wallet area (reference/wallet/)."""

from __future__ import annotations

import hashlib
import secrets
from typing import Any

from reference.faults.registry import fault
from reference.kernel.errors import Unauthorized
from reference.wallet import accounts, logins, oidc, otp, passkeys, signatures
from reference.wallet import crypto as wallet_crypto
from reference.wallet import store as wallet_store


@fault(
    "wallet-otp-any-code",
    at=otp.OTP_CODE_VALID,
    clause="§5 item 5: any code but 000000 gives 401 Invalid OTP code",
    part="auth",
    caught_by=("test_a_wrong_otp_code_is_refused_with_invalid_otp_code",),
)
def any_otp_code(valid: bool) -> bool:
    """any decrypted OTP code is accepted"""
    return True


@fault(
    "wallet-otp-no-hpke",
    at=otp.UNOPENED_BUNDLE_REFUSAL,
    clause="§5 item 5: real HPKE still runs",
    part="auth",
    caught_by=(
        "test_a_tampered_ciphertext_is_refused",
        "test_a_bundle_sealed_to_another_key_is_refused",
    ),
)
def unopened_bundle_accepted(
    refusal: Exception | None, *, failure: wallet_crypto.DecryptionFailed
) -> Exception | None:
    """an encryptedOtpBundle that cannot be opened is accepted as a valid OTP"""
    return None


@fault(
    "wallet-hpke-500",
    at=otp.UNOPENED_BUNDLE_REFUSAL,
    clause="§5 item 6, §7: failed authentication is 401",
    part="auth",
    caught_by=("test_a_malformed_encapsulated_key_is_refused_not_a_server_error",),
)
def malformed_encapsulated_key_escapes(
    refusal: Exception | None, *, failure: wallet_crypto.DecryptionFailed
) -> Exception | None:
    """a malformed encapsulated key in encryptedOtpBundle answers 500"""
    cause = failure.__cause__
    if isinstance(failure, wallet_crypto.MalformedEncapsulatedKey) and isinstance(cause, Exception):
        return cause  # pyhpke's own error, raised as is: an unhandled 500
    return refusal


@fault(
    "wallet-otp-uncompressed-ok",
    at=otp.TEK_KEY_COMPRESSED,
    clause="§5 item 1: compressed, prefix 02 or 03",
    part="auth",
    caught_by=("test_an_uncompressed_tek_key_is_refused",),
)
def any_tek_key_form(compressed: bool) -> bool:
    """an uncompressed TEK public_key in the OTP bundle is accepted"""
    return True


@fault(
    "wallet-signature-unchecked",
    at=signatures.SIGNER_REFUSAL,
    clause="§5 item 4: a P-256 signature over payloadToSign",
    part="auth",
    caught_by=(
        "test_with_a_bad_signature_a_wallet_operation_does_not_take_effect",
        "test_an_otp_retry_signed_wrongly_is_refused",
        "test_execute_from_an_embedded_wallet_without_a_valid_signature_moves_no_money",
    ),
)
def any_signature(refusal: str | None) -> str | None:
    """any Service-Wallet-Signature is accepted on a signed retry"""
    return None


@fault(
    "wallet-request-id-unbound",
    at=signatures.REQUEST_ID_BOUND,
    clause="§5 item 4: the retry of that operation",
    part="auth",
    caught_by=(
        "test_an_otp_retry_with_the_request_id_of_another_operation_is_refused",
        "test_a_retry_with_the_request_id_of_another_operation_is_refused",
    ),
)
def any_request_id_bound(bound: bool) -> bool:
    """a Request-Id issued for another operation or body is accepted"""
    return True


@fault(
    "wallet-passkey-counter-ignored",
    at=passkeys.COUNTER_FLOOR,
    clause="§5 item 2: counter",
    part="auth",
    caught_by=("test_an_assertion_whose_counter_does_not_increase_is_refused",),
)
def counter_always_increased(floor: int, *, count: int) -> int:
    """a passkey assertion whose signature counter does not increase is accepted"""
    return count - 1


@fault(
    "wallet-passkey-challenge-ignored",
    at=passkeys.EXPECTED_CHALLENGE,
    clause="§5 item 2: challenge",
    part="auth",
    caught_by=("test_a_hostile_assertion_is_refused",),
)
def any_challenge(challenge: str, *, client_data: dict[str, Any]) -> str:
    """a passkey assertion over another challenge is accepted"""
    return str(client_data.get("challenge"))


@fault(
    "wallet-passkey-origin-ignored",
    at=passkeys.EXPECTED_ORIGIN,
    clause="§5 item 2: origin/RP",
    part="auth",
    caught_by=("test_a_hostile_assertion_is_refused",),
)
def any_origin(origin: str, *, client_data: dict[str, Any]) -> str:
    """a passkey assertion from another origin is accepted"""
    return str(client_data.get("origin"))


@fault(
    "wallet-passkey-up-ignored",
    at=passkeys.ABSENT_USER_REFUSAL,
    clause="§5 item 2: user presence",
    part="auth",
    caught_by=("test_a_hostile_assertion_is_refused",),
)
def absent_user_accepted(
    refusal: Unauthorized | None,
    *,
    stored: dict[str, Any],
    authenticator_data: bytes,
    client_data: bytes,
    signature: bytes,
) -> Unauthorized | None:
    """a passkey assertion without the user-present flag is accepted"""
    # py_webauthn always requires presence: check the signature over
    # authenticatorData ‖ SHA-256(clientDataJSON) alone.
    from webauthn.helpers import decode_credential_public_key, decoded_public_key_to_cryptography
    from webauthn.helpers import verify_signature as webauthn_verify_signature

    decoded = decode_credential_public_key(bytes.fromhex(stored["publicKey"]))
    try:
        webauthn_verify_signature(
            public_key=decoded_public_key_to_cryptography(decoded),
            signature_alg=decoded.alg,
            signature=signature,
            data=authenticator_data + hashlib.sha256(client_data).digest(),
        )
    except Exception:
        return Unauthorized("bad signature")
    return None


@fault(
    "wallet-oauth-nonce-ignored",
    at=oidc.NONCE_BINDS,
    clause="§5 item 3: nonce",
    part="auth",
    caught_by=(
        "test_a_token_whose_nonce_binds_another_key_is_refused",
        "test_a_token_without_a_nonce_is_refused",
    ),
)
def any_nonce(binds: bool) -> bool:
    """an OAuth verify token whose nonce does not bind clientPublicKey is accepted"""
    return True


@fault(
    "wallet-oauth-iat-unchecked",
    at=oidc.IAT_PROBLEM,
    clause="§5 item 3, §8: iat within 60 s, 5 s skew",
    part="limits",
    caught_by=(
        "test_a_token_issued_more_than_a_minute_ago_is_refused",
        "test_a_token_issued_in_the_future_beyond_the_skew_is_refused",
    ),
)
def any_iat(problem: str | None, *, iat: float | None, now: float) -> str | None:
    """an OIDC token of any iat (old, future, missing) is accepted"""
    return None


@fault(
    "wallet-oauth-identity-unchecked",
    at=oidc.IDENTITY_MATCHES,
    clause="§5 item 3: must match all three",
    part="auth",
    caught_by=("test_a_token_of_another_identity_is_refused",),
)
def any_identity(matches: bool) -> bool:
    """an OAuth verify token of another iss/aud/sub is accepted"""
    return True


@fault(
    "wallet-oauth-alg-none",
    at=oidc.TOKEN_SIGNED,
    clause="§5 item 5: claims checked; the token must be a signed JWT",
    part="auth",
    caught_by=("test_an_unsigned_token_with_alg_none_is_refused",),
)
def alg_none_signed(signed: bool) -> bool:
    """an OIDC token with alg none is accepted"""
    return True


@fault(
    "wallet-session-revoke-ignored",
    at=signatures.SESSION_ACTIVE,
    clause="§4: DELETE /auth/sessions/{id} revokes the session",
    part="endpoints",
    caught_by=("test_a_revoked_sessions_signing_key_is_no_longer_accepted",),
)
def revoked_session_active(active: bool) -> bool:
    """a revoked session's key still signs wallet operations"""
    return True


@fault(
    "wallet-credential-revoke-ignored",
    at=wallet_store.CREDENTIAL_ACTIVE,
    clause="§4: DELETE /auth/credentials/{id} revokes it",
    part="endpoints",
    caught_by=("test_a_revoked_credential_can_no_longer_be_challenged_or_verified",),
)
def revoked_credential_active(active: bool) -> bool:
    """a revoked credential still challenges, verifies and signs"""
    return True


@fault(
    "wallet-execute-unsigned",
    at=accounts.EXECUTE_NEEDS_SIGNATURE,
    clause="§5 item 4, §2 EMBEDDED_WALLET",
    part="auth",
    caught_by=("test_execute_from_an_embedded_wallet_without_a_valid_signature_moves_no_money",),
)
def execute_unsigned(needed: bool, *, account: Any, quote_id: str) -> bool:
    """execute of a quote from an embedded wallet without signature executes"""
    return False


@fault(
    "wallet-export-unsigned",
    at=accounts.EXPORT_NEEDS_SIGNATURE,
    clause="§5 item 4",
    part="auth",
    caught_by=("test_without_a_signature_a_wallet_operation_does_not_take_effect",),
)
def export_unsigned(needed: bool, *, account: Any) -> bool:
    """POST /internal-accounts/{id}/export without signature exports the wallet"""
    return False


@fault(
    "wallet-legacy-literal-refused",
    at=(signatures.LEGACY_LITERAL_ACCEPTED, passkeys.LEGACY_LITERAL_ACCEPTED),
    clause="§5 item 5: still accepted",
    part="auth",
    caught_by=(
        "test_the_legacy_passkey_signature_literal_is_still_accepted",
        "test_the_legacy_wallet_signature_literal_is_still_accepted",
    ),
)
def legacy_literal_refused(accepted: bool) -> bool:
    """the legacy literal signatures sandbox-valid-signature and sandbox-valid-passkey-signature
    are refused"""
    return False


@fault(
    "wallet-passkey-challenge-names-another-id",
    at=logins.CHALLENGED_CREDENTIAL_ID,
    clause="§4 /auth rows: a passkey challenge returns the challenged passkey's credentialId",
    part="endpoints",
    caught_by=("test_the_challenge_of_a_passkey_returns_challenge_credential_id_and_request_id",),
)
def random_credential_id(named: str, *, credential: wallet_store.Credential) -> str:
    """a passkey challenge answers a random credentialId (base64url, the shape of a real one)"""
    return passkeys.b64url(secrets.token_bytes(16))
