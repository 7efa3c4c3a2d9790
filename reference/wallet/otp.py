"""``EMAIL_OTP`` and ``SMS_OTP`` (§5 item 1): the enclave-signed target bundle, opening
``encryptedOtpBundle`` with real HPKE, the fixed sandbox code and the TEK-signed retry
(SANDBOX.md, "Enclave-signed bundles", "Client → server")."""

from __future__ import annotations

from typing import Any

from starlette.responses import JSONResponse, Response

from reference.kernel.errors import FieldError, InvalidInput, Unauthorized
from reference.kernel.request_body import strict_loads
from reference.kernel.routing import ApiRequest
from reference.kernel.seams import seam
from reference.wallet import challenges as wallet_challenges
from reference.wallet import crypto as wallet_crypto
from reference.wallet import signatures as wallet_signatures
from reference.wallet import store as wallet_store
from reference.wallet.store import Credential

SANDBOX_CODE = "000000"  # §5 item 5

OTP_CODE_VALID = seam(
    "wallet.otp_code_valid", "whether the otp_code of an opened OTP bundle is the sandbox code"
)
TEK_KEY_COMPRESSED = seam(
    "wallet.tek_key_compressed",
    "whether the TEK public_key of an opened OTP bundle is compressed (prefix 02 or 03)",
)
UNOPENED_BUNDLE_REFUSAL = seam(
    "wallet.unopened_bundle_refusal",
    "the error raised for an encryptedOtpBundle that cannot be opened: a 401; None takes it"
    " as opened naming no TEK key, so any session key may sign the retry"
    " (context: failure, the DecryptionFailed)",
)


def challenge(request: ApiRequest, credential: Credential) -> Response:
    """``200 {otpEncryptionTargetBundle, requestId}`` with a fresh per-challenge target key."""
    db = request.services.db
    target = wallet_crypto.new_key()
    scalar = wallet_crypto.private_scalar(target).hex()
    opened = wallet_challenges.open_challenge(db, credential.id, {"targetKey": scalar})
    data = {
        "targetPublic": wallet_crypto.public_hex(target.public_key()),
        "credentialId": credential.id,
        "customerId": credential.customer_id,
    }
    bundle = wallet_crypto.bundle(db, data)
    return JSONResponse({"otpEncryptionTargetBundle": bundle, "requestId": opened.id})


def _tek_key(request: ApiRequest, plaintext: bytes) -> str:
    """Check the opened plaintext: the code, then the compressed TEK key; its hex."""
    seams = request.services.settings.seams
    try:
        content: Any = strict_loads(plaintext)
    except (ValueError, RecursionError) as exc:
        raise Unauthorized("decryption failed: the plaintext is not JSON") from exc
    if not isinstance(content, dict):
        raise Unauthorized("decryption failed: the plaintext is not a JSON object")
    if not seams.apply(OTP_CODE_VALID, content.get("otp_code") == SANDBOX_CODE):
        raise Unauthorized("Invalid OTP code")
    key_hex = content.get("public_key")
    if wallet_crypto.public_key_from_hex(key_hex) is None:
        raise Unauthorized("TEK key invalid")
    assert isinstance(key_hex, str)
    if not seams.apply(TEK_KEY_COMPRESSED, wallet_crypto.is_compressed_hex(key_hex)):
        raise Unauthorized("TEK key not compressed")
    return key_hex.lower()


def verify(request: ApiRequest, credential: Credential, operation: str) -> Response:
    """First call: open the bundle, check code and key → ``202 {payloadToSign, requestId}``;
    the retry signed by the TEK key → ``200 {session}`` (+ ``encryptedSessionSigningKey``
    for ``SMS_OTP``; for ``EMAIL_OTP`` the TEK key is the session key)."""
    services = request.services
    db = services.db
    # The retry carries the signature; the first call may carry the challenge's Request-Id.
    if request.headers.get(wallet_signatures.SIGNATURE_HEADER):
        with db.transaction():
            authorized = wallet_signatures.verify(request, operation, credential.customer_id)
            return _open_session(request, credential, authorized.context.get("tek"))
    sealed = wallet_crypto.sealed_from_json(request.body.get("encryptedOtpBundle"))
    if sealed is None:
        raise InvalidInput(
            [
                FieldError(
                    "encryptedOtpBundle",
                    "HPKE_BUNDLE",
                    "must be {encappedPublic, ciphertext} in hex",
                )
            ]
        )
    with db.transaction():
        found = wallet_challenges.find(
            db, credential.id, request.headers.get(wallet_signatures.REQUEST_ID_HEADER)
        )
        target = wallet_crypto.private_from_scalar_hex(found.state["targetKey"])
        plaintext: bytes | None = None
        try:
            plaintext = wallet_crypto.open_sealed(target, sealed)
        except wallet_crypto.DecryptionFailed as exc:
            refusal: Exception | None = services.settings.seams.apply(
                UNOPENED_BUNDLE_REFUSAL, Unauthorized("decryption failed"), failure=exc
            )
            if refusal is not None:
                raise refusal from exc
        tek = None if plaintext is None else _tek_key(request, plaintext)
        wallet_challenges.use(db, found)
        return wallet_signatures.challenge(
            request, operation, credential.customer_id, signer_key=tek, context={"tek": tek}
        )


def _open_session(request: ApiRequest, credential: Credential, tek: str | None) -> Response:
    db = request.services.db
    if credential.type == wallet_store.EMAIL_OTP and tek is not None:
        session = wallet_store.create_session(db, credential, tek)
        return JSONResponse({"session": wallet_store.render_session(session)})
    session_key = wallet_crypto.new_key()
    public = wallet_crypto.public_hex(session_key.public_key())
    session = wallet_store.create_session(db, credential, public)
    body: dict[str, Any] = {"session": wallet_store.render_session(session)}
    receiver = wallet_crypto.public_key_from_hex(tek)
    if receiver is not None:
        body["encryptedSessionSigningKey"] = wallet_crypto.sealed_bundle(
            db, receiver, wallet_crypto.private_scalar(session_key), credential.customer_id
        )
    return JSONResponse(body)
