"""The ``/auth`` endpoints of embedded-wallet authentication (§4 "Cards, stablecoins, agents,
auth, sandbox"; §5): register, challenge, verify, and the signed revocations."""

from __future__ import annotations

from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from reference.kernel.errors import ApiError, Unauthorized
from reference.kernel.request_body import read_json_object
from reference.kernel.routing import ApiRequest, Operation, api_route
from reference.kernel.validation import Problems
from reference.wallet import credentials as wallet_credentials
from reference.wallet import logins as wallet_logins
from reference.wallet import otp as wallet_otp
from reference.wallet import signatures
from reference.wallet import store as wallet_store
from reference.wallet.store import Credential

# the feature a profile declares for an embedded wallet (§1 item 8; the suite's --features)
FEATURES = ("embedded-wallet",)


async def optional_json_object(request: Request) -> dict[str, Any]:
    """The JSON object body, or ``{}`` when there is none (an OTP challenge sends none)."""
    if not (await request.body()).strip():
        return {}
    return await read_json_object(request)


def _usable(request: ApiRequest) -> Credential:
    """The path's credential, 404 unknown, 401 once revoked."""
    db = request.services.db
    credential = wallet_store.load_credential(db, request.platform.id, request.path_params["id"])
    active = credential.status == wallet_store.ACTIVE
    if not request.services.settings.seams.apply(wallet_store.CREDENTIAL_ACTIVE, active):
        raise Unauthorized("credential revoked")
    return credential


def challenge(request: ApiRequest) -> Response:
    """``POST /auth/credentials/{id}/challenge``: OTP target bundle, or a passkey challenge;
    an OAuth credential has nothing to challenge (409). A ``clientPublicKey`` sent is read
    whatever the type (400 when it is no P-256 point): the form before the state."""
    credential = _usable(request)
    if isinstance(request.body, dict) and "clientPublicKey" in request.body:
        problems = Problems()
        wallet_logins.read_client_key(problems, request.body)
        problems.raise_if_any()
    if credential.type in (wallet_store.EMAIL_OTP, wallet_store.SMS_OTP):
        return wallet_otp.challenge(request, credential)
    if credential.type == wallet_store.PASSKEY:
        return wallet_logins.passkey_challenge(request, credential)
    raise ApiError(
        409,
        "NOTHING_TO_CHALLENGE",
        f"{credential.id} is an OAUTH credential: it verifies with a fresh oidcToken",
    )


# The member that marks a verify body as the shape of one credential type.
_VERIFY_SHAPES = {
    "encryptedOtpBundle": (wallet_store.EMAIL_OTP, wallet_store.SMS_OTP),
    "assertion": (wallet_store.PASSKEY,),
    "oidcToken": (wallet_store.OAUTH,),
}


def verify(request: ApiRequest) -> Response:
    """``POST /auth/credentials/{id}/verify``: per type, a session (OTP after a signed retry).

    A body shaped for another type of credential (an assertion for an OTP credential) is
    at odds with the credential's type, its state: 409, as the served document declares
    the three shapes."""
    credential = _usable(request)
    body = request.body if isinstance(request.body, dict) else {}
    for member, types in _VERIFY_SHAPES.items():
        if member in body and credential.type not in types:
            raise ApiError(
                409,
                "WRONG_CREDENTIAL_TYPE",
                f"{credential.id} is {credential.type}: {member} verifies another type",
            )
    if credential.type in (wallet_store.EMAIL_OTP, wallet_store.SMS_OTP):
        operation = f"POST /auth/credentials/{credential.id}/verify"
        return wallet_otp.verify(request, credential, operation)
    if credential.type == wallet_store.PASSKEY:
        return wallet_logins.passkey_verify(request, credential)
    return wallet_logins.oauth_verify(request, credential)


def revoke_credential(request: ApiRequest) -> Response:
    """``DELETE /auth/credentials/{id}``, signed → ``200`` credential ``REVOKED``."""
    db = request.services.db
    with db.transaction():
        credential = wallet_store.load_credential(
            db, request.platform.id, request.path_params["id"]
        )
        operation = f"DELETE /auth/credentials/{credential.id}"
        if not signatures.is_signed_retry(request):
            return signatures.challenge(request, operation, credential.customer_id)
        signatures.verify(request, operation, credential.customer_id)
        body = wallet_store.render_credential(wallet_store.revoke_credential(db, credential))
    return JSONResponse(body)


def revoke_session(request: ApiRequest) -> Response:
    """``DELETE /auth/sessions/{id}``, signed → ``200`` session ``REVOKED``."""
    db = request.services.db
    with db.transaction():
        session = wallet_store.load_session(db, request.platform.id, request.path_params["id"])
        operation = f"DELETE /auth/sessions/{session.id}"
        if not signatures.is_signed_retry(request):
            return signatures.challenge(request, operation, session.customer_id)
        signatures.verify(request, operation, session.customer_id)
        body = wallet_store.render_session(wallet_store.revoke_session(db, session))
    return JSONResponse(body)


ROUTES = [
    api_route("/auth/credentials", Operation("POST", wallet_credentials.register, body=True)),
    api_route(
        "/auth/credentials/{id}/challenge",
        Operation("POST", challenge, reader=optional_json_object),
    ),
    api_route(
        "/auth/credentials/{id}/verify", Operation("POST", verify, reader=optional_json_object)
    ),
    api_route("/auth/credentials/{id}", Operation("DELETE", revoke_credential)),
    api_route("/auth/sessions/{id}", Operation("DELETE", revoke_session)),
]
