"""Passkey and OAuth logins (§5 items 2 and 3): the passkey challenge, verifying an
assertion or a fresh OIDC token, and the session they open, whose signing key goes back
HPKE-sealed to the client's ``clientPublicKey`` in an enclave-signed bundle."""

from __future__ import annotations

import secrets
from typing import Any

from starlette.responses import JSONResponse, Response

from reference.kernel.errors import InvalidInput, Unauthorized
from reference.kernel.routing import ApiRequest
from reference.kernel.seams import seam
from reference.kernel.validation import Problems
from reference.wallet import challenges as wallet_challenges
from reference.wallet import crypto as wallet_crypto
from reference.wallet import oidc as wallet_oidc
from reference.wallet import passkeys as wallet_passkeys
from reference.wallet import store as wallet_store
from reference.wallet.store import Credential

REQUEST_ID_HEADER = "Request-Id"
CHALLENGE_BYTES = 32

CHALLENGED_CREDENTIAL_ID = seam(
    "wallet.passkey_challenged_credential_id",
    "the credentialId a passkey challenge answers: the WebAuthn credential id of the passkey"
    " challenged (context: credential)",
)


def read_client_key(problems: Problems, body: dict[str, Any]) -> str | None:
    """``clientPublicKey``: hex of a P-256 point, compressed or not."""
    value = problems.required(body, "clientPublicKey", "")
    if value is None or problems.string("clientPublicKey", value) is None:
        return None
    if wallet_crypto.public_key_from_hex(value) is None:
        problems.add("clientPublicKey", "P256_PUBLIC_KEY", "must be the hex of a P-256 point")
        return None
    return str(value)


def _session_answer(request: ApiRequest, credential: Credential, client_key: str) -> Response:
    db = request.services.db
    receiver = wallet_crypto.public_key_from_hex(client_key)
    assert receiver is not None  # checked when the body was read
    session_key = wallet_crypto.new_key()
    public = wallet_crypto.public_hex(session_key.public_key())
    session = wallet_store.create_session(db, credential, public)
    sealed = wallet_crypto.sealed_bundle(
        db, receiver, wallet_crypto.private_scalar(session_key), credential.customer_id
    )
    body = {"session": wallet_store.render_session(session), "encryptedSessionSigningKey": sealed}
    return JSONResponse(body)


def passkey_challenge(request: ApiRequest, credential: Credential) -> Response:
    """``200 {challenge, credentialId, requestId}`` for a body ``{clientPublicKey}``."""
    problems = Problems()
    client_key = read_client_key(problems, request.body)
    problems.raise_if_any()
    challenge = wallet_passkeys.b64url(secrets.token_bytes(CHALLENGE_BYTES))
    state = {"challenge": challenge, "clientPublicKey": client_key}
    opened = wallet_challenges.open_challenge(request.services.db, credential.id, state)
    named = request.services.settings.seams.apply(
        CHALLENGED_CREDENTIAL_ID, credential.details["credentialId"], credential=credential
    )
    return JSONResponse({"challenge": challenge, "credentialId": named, "requestId": opened.id})


def _read_assertion(body: dict[str, Any]) -> wallet_passkeys.Assertion:
    problems = Problems()
    assertion = problems.required(body, "assertion", "")
    if assertion is None or problems.object("assertion", assertion) is None:
        problems.raise_if_any()
    assert isinstance(assertion, dict)
    credential_id = problems.required(assertion, "credentialId", "assertion")
    if credential_id is not None:
        credential_id = problems.string("assertion.credentialId", credential_id)
    signature: bytes | str | None
    raw_signature = assertion.get("signature")
    legacy = raw_signature == wallet_passkeys.LEGACY_SIGNATURE
    read = wallet_passkeys.read_b64url
    if legacy:  # the legacy literal needs nothing else
        signature, client_data, auth = raw_signature, b"", b""
    else:
        signature = read(problems, assertion, "signature", "assertion")
        client_data = read(problems, assertion, "clientDataJson", "assertion") or b""
        auth = read(problems, assertion, "authenticatorData", "assertion") or b""
    problems.raise_if_any()
    assert isinstance(credential_id, str) and signature is not None
    return wallet_passkeys.Assertion(credential_id, client_data, auth, signature)


def passkey_verify(request: ApiRequest, credential: Credential) -> Response:
    """An assertion answering the challenge the ``Request-Id`` header names → session."""
    assertion = _read_assertion(request.body)
    db = request.services.db
    request_id = request.headers.get(REQUEST_ID_HEADER)
    if not request_id:
        raise Unauthorized("missing request id")
    with db.transaction():
        found = wallet_challenges.find(db, credential.id, request_id)
        count = wallet_passkeys.verify_assertion(
            request.services.settings, assertion, found.state["challenge"], credential.details
        )
        wallet_challenges.use(db, found)
        wallet_store.update_details(db, credential, {**credential.details, "signCount": count})
        return _session_answer(request, credential, found.state["clientPublicKey"])


def oauth_verify(request: ApiRequest, credential: Credential) -> Response:
    """A fresh ``oidcToken`` of the same identity, bound to ``clientPublicKey`` → session."""
    problems = Problems()
    client_key = read_client_key(problems, request.body)
    token = problems.required(request.body, "oidcToken", "")
    if token is not None:
        try:
            wallet_oidc.parse(token)
        except InvalidInput as exc:  # merged, so every invalid field is listed at once
            for error in exc.errors:
                problems.add(error.field, error.constraint, error.message)
    problems.raise_if_any()
    assert client_key is not None
    settings = request.services.settings
    identity, claims = wallet_oidc.check(settings, token)
    wallet_oidc.check_binding(settings, credential.details, identity, claims, client_key)
    with request.services.db.transaction():
        return _session_answer(request, credential, client_key)
