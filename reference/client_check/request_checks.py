"""The checks of a request as it arrived, each judging one rule: the Basic credentials, the
JSON body against its request shape, Idempotency-Key, the signed retry's headers and the
document upload. Each has one signature, ``check(seen, judged)``: it reads the request as
:class:`SeenRequest` holds it and adds to its judgement; :func:`request_check` registers it
and the middleware runs every registered check in :data:`CHECKS` order."""

from __future__ import annotations

import base64
import json
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from starlette.datastructures import Headers

from reference.agents import bearer
from reference.client_check import body_schemas
from reference.client_check.judgement import Judgement
from reference.client_check.rules import (
    BASIC_CREDENTIALS,
    DOCUMENT_UPLOAD,
    IDEMPOTENCY_KEY,
    REQUEST_BODY,
    SIGNED_RETRY,
)
from reference.kernel.auth import authenticate
from reference.kernel.errors import Unauthorized
from reference.kernel.services import Services
from reference.kernel.sync_calls import call_sync
from reference.wallet.signatures import REQUEST_ID_HEADER, SIGNATURE_HEADER

MAX_IDEMPOTENCY_KEY = 255  # §8 Limits: Idempotency-Key (account creation) up to 255 characters
# §5 item 4's signed operations, and item 1's OTP verify retry (path templates)
SIGNED_OPERATIONS = (
    ("POST", "/auth/credentials"),
    ("POST", "/auth/credentials/{id}/verify"),
    ("DELETE", "/auth/credentials/{id}"),
    ("DELETE", "/auth/sessions/{id}"),
    ("POST", "/internal-accounts/{id}/export"),
    ("PATCH", "/internal-accounts/{id}"),
    ("POST", "/quotes/{quoteId}/execute"),
)


@dataclass(frozen=True, slots=True)
class SeenRequest:
    """One request as the check saw it: the route path (under the base path), the whole
    raw body, and the multipart upload's problems when asked for."""

    services: Services
    method: str
    path: str
    headers: Headers
    raw: bytes
    upload_problems: Callable[[], Awaitable[list[str]]]


RequestCheck = Callable[[SeenRequest, Judgement], Awaitable[None]]
CHECKS: list[RequestCheck] = []  # filled at import by @request_check, in the order written


def request_check(check: RequestCheck) -> RequestCheck:
    """Register ``check`` to judge every request."""
    CHECKS.append(check)
    return check


@request_check
async def basic_credentials(seen: SeenRequest, judged: Judgement) -> None:
    """A platform request carries Basic credentials of this sandbox (§5 Authentication);
    an agent's Bearer token is the agents' own scheme and is not judged here, but a Bearer
    that carries the platform's own API credentials is (``_platform_bearer``)."""
    header = seen.headers.get("authorization")
    if bearer.is_bearer(header):
        assert header is not None
        _platform_bearer(seen.services, header, judged)
        return
    try:
        authenticate(seen.services, header)
    except Unauthorized as refused:
        judged.finds(
            BASIC_CREDENTIALS,
            f"{BASIC_CREDENTIALS.clause}: the Authorization header must be HTTP Basic "
            f"<api token id>:<api client secret> of a sandbox credential; {refused.reason}",
        )
    else:
        judged.checks(BASIC_CREDENTIALS)


def _platform_bearer(services: Services, header: str, judged: Judgement) -> None:
    """A Bearer token that is the API client secret (or the token id, or the pair, plain or
    base64 as Basic sends it) of a credential of this sandbox: the platform's Basic
    credentials sent in the agents' scheme. Any other Bearer token may be an agent's,
    revoked or not, and is left alone."""
    token = header.strip().partition(" ")[2].strip()
    published = services.credentials
    own = {
        part
        for credential in (published.primary, published.second, published.production)
        for pair in [f"{credential.token_id}:{credential.secret}"]
        for part in (
            credential.secret,
            credential.token_id,
            pair,
            base64.b64encode(pair.encode()).decode("ascii"),  # Basic's value, scheme swapped
        )
    }
    if token not in own:
        return
    judged.finds(
        BASIC_CREDENTIALS,
        f"{BASIC_CREDENTIALS.clause}: a platform endpoint takes HTTP Basic <api token id>:<api "
        "client secret>; this request sent the platform's API credentials as a Bearer token "
        "(Bearer is the agents' scheme, for the access token of a redeemed device code)",
    )


@request_check
async def request_body(seen: SeenRequest, judged: Judgement) -> None:
    """A body whose shape §4 shows follows it; every invalid field is named in one finding."""
    method, path, raw = seen.method, seen.path, seen.raw
    schema = body_schemas.schema_for(method, path)
    if schema is None:
        return
    clause = body_schemas.clause_of(schema) or REQUEST_BODY.clause
    where = f"{clause}: {method} {path} body"
    if not raw.strip():
        if schema in body_schemas.OPTIONAL_BODIES:
            judged.checks(REQUEST_BODY)
            return
        judged.finds(REQUEST_BODY, f"{where}: a JSON object body is required; none sent", clause)
        return
    try:
        body = json.loads(raw)
    except (ValueError, RecursionError):
        judged.finds(REQUEST_BODY, f"{where}: is not JSON (bodies are JSON unless stated)", clause)
        return
    invalid = body_schemas.invalid_fields(schema, body)
    if not invalid:
        judged.checks(REQUEST_BODY)
        return
    listed = "; ".join(f"{name}: {why}" for name, why in invalid)
    count = f"{len(invalid)} invalid field{'s' if len(invalid) > 1 else ''}"
    judged.finds(REQUEST_BODY, f"{where} ({schema}): {count}: {listed}", clause)


@request_check
async def idempotency_key(seen: SeenRequest, judged: Judgement) -> None:
    """``POST /internal-accounts``: a key of at most 255 characters; none is allowed, but
    strongly recommended (an advisory)."""
    method, path, headers = seen.method, seen.path, seen.headers
    if method != "POST" or not body_schemas.matches("/internal-accounts", path):
        return
    key = headers.get("idempotency-key")
    if key is None:
        judged.advises(
            IDEMPOTENCY_KEY,
            f"{IDEMPOTENCY_KEY.clause}: POST /internal-accounts without Idempotency-Key "
            "(strongly recommended: without one, every request mints a new account number)",
        )
    elif len(key) > MAX_IDEMPOTENCY_KEY:
        judged.finds(
            IDEMPOTENCY_KEY,
            f"§8 Limits: Idempotency-Key is {len(key)} characters; at most "
            f"{MAX_IDEMPOTENCY_KEY} are allowed",
            "§8 Limits",
        )
    else:
        judged.checks(IDEMPOTENCY_KEY)


@request_check
async def signed_retry(seen: SeenRequest, judged: Judgement) -> None:
    """A retry carrying ``Service-Wallet-Signature`` carries ``Request-Id`` too, and one
    carrying the ``Request-Id`` of a 202 answer (a payloadToSign was issued under it)
    carries the signature (§5 items 1 and 4). Any other ``Request-Id`` alone is no retry:
    the OTP and passkey verify echo the challenge's, and clients send it for tracing."""
    method, path, headers = seen.method, seen.path, seen.headers
    signed = any(
        method == one and body_schemas.matches(template, path)
        for one, template in SIGNED_OPERATIONS
    )
    if not signed:
        return
    if SIGNATURE_HEADER not in headers:
        request_id = headers.get(REQUEST_ID_HEADER)
        issued = request_id is not None and await call_sync(
            seen.services.settings, _payload_issued, seen.services, request_id
        )
        if issued:
            judged.finds(
                SIGNED_RETRY,
                f"{SIGNED_RETRY.clause}: the retry of {method} {path} carries the "
                f"{REQUEST_ID_HEADER} of a 202 answer but no {SIGNATURE_HEADER} (the "
                "signature over its payloadToSign is required on the retry)",
            )
        return
    if headers.get(REQUEST_ID_HEADER):
        judged.checks(SIGNED_RETRY)
        return
    judged.finds(
        SIGNED_RETRY,
        f"{SIGNED_RETRY.clause}: the signed retry of {method} {path} carries "
        f"{SIGNATURE_HEADER} but no {REQUEST_ID_HEADER} (the requestId of the 202 answer)",
    )


def _payload_issued(services: Services, request_id: str) -> bool:
    """Whether a 202 answer issued a payloadToSign under ``request_id``."""
    row = services.db.fetchone("SELECT 1 FROM wallet_requests WHERE id = ?", (request_id,))
    return row is not None


@request_check
async def document_upload(seen: SeenRequest, judged: Judgement) -> None:
    """``POST /documents`` is the multipart upload of §2 Document; every problem in one
    finding."""
    if seen.method != "POST" or not body_schemas.matches("/documents", seen.path):
        return
    found = await seen.upload_problems()
    if not found:
        judged.checks(DOCUMENT_UPLOAD)
        return
    judged.finds(DOCUMENT_UPLOAD, f"{DOCUMENT_UPLOAD.clause}: POST /documents: " + "; ".join(found))
