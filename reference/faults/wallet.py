"""Fault modes of the wallet area (reference/wallet/)."""

from __future__ import annotations

from reference.faults.legacy import legacy

legacy(
    "wallet-otp-any-code",
    breaks="any decrypted OTP code is accepted",
    clause="§5 item 5: any code but 000000 gives 401 Invalid OTP code",
    part="auth",
    caught_by=("test_a_wrong_otp_code_is_refused_with_invalid_otp_code",),
)
legacy(
    "wallet-otp-no-hpke",
    breaks="an encryptedOtpBundle that cannot be opened is accepted as a valid OTP",
    clause="§5 item 5: real HPKE still runs",
    part="auth",
    caught_by=(
        "test_a_tampered_ciphertext_is_refused",
        "test_a_bundle_sealed_to_another_key_is_refused",
    ),
)
legacy(
    "wallet-hpke-500",
    breaks="a malformed encapsulated key in encryptedOtpBundle answers 500",
    clause="§5 item 6, §7: failed authentication is 401",
    part="auth",
    caught_by=("test_a_malformed_encapsulated_key_is_refused_not_a_server_error",),
)
legacy(
    "wallet-otp-uncompressed-ok",
    breaks="an uncompressed TEK public_key in the OTP bundle is accepted",
    clause="§5 item 1: compressed, prefix 02 or 03",
    part="auth",
    caught_by=("test_an_uncompressed_tek_key_is_refused",),
)
legacy(
    "wallet-signature-unchecked",
    breaks="any Service-Wallet-Signature is accepted on a signed retry",
    clause="§5 item 4: a P-256 signature over payloadToSign",
    part="auth",
    caught_by=(
        "test_with_a_bad_signature_a_wallet_operation_does_not_take_effect",
        "test_an_otp_retry_signed_wrongly_is_refused",
        "test_execute_from_an_embedded_wallet_without_a_valid_signature_moves_no_money",
    ),
)
legacy(
    "wallet-request-id-unbound",
    breaks="a Request-Id issued for another operation or body is accepted",
    clause="§5 item 4: the retry of that operation",
    part="auth",
    caught_by=(
        "test_an_otp_retry_with_the_request_id_of_another_operation_is_refused",
        "test_a_retry_with_the_request_id_of_another_operation_is_refused",
    ),
)
legacy(
    "wallet-passkey-counter-ignored",
    breaks="a passkey assertion whose signature counter does not increase is accepted",
    clause="§5 item 2: counter",
    part="auth",
    caught_by=("test_an_assertion_whose_counter_does_not_increase_is_refused",),
)
legacy(
    "wallet-passkey-challenge-ignored",
    breaks="a passkey assertion over another challenge is accepted",
    clause="§5 item 2: challenge",
    part="auth",
    caught_by=("test_a_hostile_assertion_is_refused",),
)
legacy(
    "wallet-passkey-origin-ignored",
    breaks="a passkey assertion from another origin is accepted",
    clause="§5 item 2: origin/RP",
    part="auth",
    caught_by=("test_a_hostile_assertion_is_refused",),
)
legacy(
    "wallet-passkey-up-ignored",
    breaks="a passkey assertion without the user-present flag is accepted",
    clause="§5 item 2: user presence",
    part="auth",
    caught_by=("test_a_hostile_assertion_is_refused",),
)
legacy(
    "wallet-oauth-nonce-ignored",
    breaks="an OAuth verify token whose nonce does not bind clientPublicKey is accepted",
    clause="§5 item 3: nonce",
    part="auth",
    caught_by=(
        "test_a_token_whose_nonce_binds_another_key_is_refused",
        "test_a_token_without_a_nonce_is_refused",
    ),
)
legacy(
    "wallet-oauth-iat-unchecked",
    breaks="an OIDC token of any iat (old, future, missing) is accepted",
    clause="§5 item 3, §8: iat within 60 s, 5 s skew",
    part="limits",
    caught_by=(
        "test_a_token_issued_more_than_a_minute_ago_is_refused",
        "test_a_token_issued_in_the_future_beyond_the_skew_is_refused",
    ),
)
legacy(
    "wallet-oauth-identity-unchecked",
    breaks="an OAuth verify token of another iss/aud/sub is accepted",
    clause="§5 item 3: must match all three",
    part="auth",
    caught_by=("test_a_token_of_another_identity_is_refused",),
)
legacy(
    "wallet-oauth-alg-none",
    breaks="an OIDC token with alg none is accepted",
    clause="§5 item 5: claims checked; the token must be a signed JWT",
    part="auth",
    caught_by=("test_an_unsigned_token_with_alg_none_is_refused",),
)
legacy(
    "wallet-session-revoke-ignored",
    breaks="a revoked session's key still signs wallet operations",
    clause="§4: DELETE /auth/sessions/{id} revokes the session",
    part="endpoints",
    caught_by=("test_a_revoked_sessions_signing_key_is_no_longer_accepted",),
)
legacy(
    "wallet-credential-revoke-ignored",
    breaks="a revoked credential still challenges, verifies and signs",
    clause="§4: DELETE /auth/credentials/{id} revokes it",
    part="endpoints",
    caught_by=("test_a_revoked_credential_can_no_longer_be_challenged_or_verified",),
)
legacy(
    "wallet-execute-unsigned",
    breaks="execute of a quote from an embedded wallet without signature executes",
    clause="§5 item 4, §2 EMBEDDED_WALLET",
    part="auth",
    caught_by=("test_execute_from_an_embedded_wallet_without_a_valid_signature_moves_no_money",),
)
legacy(
    "wallet-export-unsigned",
    breaks="POST /internal-accounts/{id}/export without signature exports the wallet",
    clause="§5 item 4",
    part="auth",
    caught_by=("test_without_a_signature_a_wallet_operation_does_not_take_effect",),
)
legacy(
    "wallet-legacy-literal-refused",
    breaks="the legacy literal signatures sandbox-valid-signature and sandbox-valid-passkey-signature are refused",
    clause="§5 item 5: still accepted",
    part="auth",
    caught_by=(
        "test_the_legacy_passkey_signature_literal_is_still_accepted",
        "test_the_legacy_wallet_signature_literal_is_still_accepted",
    ),
)
