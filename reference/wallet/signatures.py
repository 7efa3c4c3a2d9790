"""Wallet-signed operations (§5 item 4; SANDBOX.md, "Wallet-signed operations").

The first call, without ``Service-Wallet-Signature`` and ``Request-Id``, answers ``202
{payloadToSign, requestId}`` and changes nothing. The retry repeats method, path and body
with both headers; the request id is single-use, bound to its operation, body and customer,
and lives 5 minutes. The signature is an ECDSA P-256 signature (hex; DER or raw r||s, §5
names no encoding) over the exact ``payloadToSign``, by the key of an active session of the
customer, or by the key the request id names (the OTP verify retry: the TEK key).
"""

from __future__ import annotations

import hashlib
import json
import uuid
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from starlette.responses import JSONResponse

from reference.kernel.clock import iso, parse_iso, utc_now
from reference.kernel.db import Database, from_json, to_json
from reference.kernel.errors import Unauthorized
from reference.kernel.routing import ApiRequest
from reference.kernel.seams import Seams, seam
from reference.wallet import crypto as wallet_crypto
from reference.wallet import store as wallet_store

SIGNATURE_HEADER = "Service-Wallet-Signature"
REQUEST_ID_HEADER = "Request-Id"
LEGACY_SIGNATURE = "sandbox-valid-signature"  # §5 item 5: still accepted
REQUEST_LIFETIME = timedelta(minutes=5)

LEGACY_LITERAL_ACCEPTED = seam(
    "wallet.signature_literal_accepted",
    "whether the legacy literal Service-Wallet-Signature sandbox-valid-signature is accepted",
)
REQUEST_ID_BOUND = seam(
    "wallet.request_id_bound",
    "whether the retry's Request-Id was issued for this operation, body and customer",
)
SESSION_ACTIVE = seam(
    "wallet.session_active", "whether the session whose key signed a retry is still active"
)
SIGNER_REFUSAL = seam(
    "wallet.signer_refusal",
    "why a signed retry's signature is refused ('bad signature', 'session revoked',"
    " 'credential revoked'), or None when it is accepted",
)


def body_sha256(body: dict[str, Any]) -> str:
    """Hex SHA-256 of the body's canonical JSON (sorted keys, compact), ``{}`` when none:
    the handler sees the parsed body, so whitespace does not bind, the content does."""
    canonical = json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(canonical.encode()).hexdigest()


def challenge(
    request: ApiRequest,
    operation: str,
    customer_id: str,
    *,
    signer_key: str | None = None,
    context: dict[str, Any] | None = None,
) -> JSONResponse:
    """Store a fresh request id for ``operation`` and answer ``202 {payloadToSign,
    requestId}``. ``signer_key`` (hex) names the only key that may sign the retry."""
    request_id = str(uuid.uuid4())
    now = utc_now()
    payload = json.dumps(
        {
            "operation": operation,
            "bodySha256": body_sha256(request.body),
            "requestId": request_id,
            "customerId": customer_id,
            "issuedAt": iso(now),
        },
        separators=(",", ":"),
    )
    request.services.db.execute(
        """INSERT INTO wallet_requests (id, platform_id, customer_id, operation, body_sha256,
           payload, signer_key, context, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)""",
        (
            request_id,
            request.platform.id,
            customer_id,
            operation,
            body_sha256(request.body),
            payload,
            signer_key,
            to_json(context or {}),
            iso(now + REQUEST_LIFETIME),
        ),
    )
    return JSONResponse({"payloadToSign": payload, "requestId": request_id}, status_code=202)


def is_signed_retry(request: ApiRequest) -> bool:
    """Whether the request carries either of the two retry headers."""
    headers = request.headers
    return SIGNATURE_HEADER in headers or REQUEST_ID_HEADER in headers


@dataclass(frozen=True, slots=True)
class Authorized:
    """A verified retry: its request id and what the first call stored with it."""

    request_id: str
    context: dict[str, Any]


def _signer_refusal(
    seams: Seams,
    db: Database,
    customer_id: str,
    signer_key: str | None,
    payload: str,
    signature: str,
) -> str | None:
    """Why the signature is refused, or None to accept it: the request id's own key when it
    names one (the OTP retry's TEK key), else any unexpired session key of the customer that
    is neither revoked itself nor of a revoked credential."""
    if signature == LEGACY_SIGNATURE and seams.apply(LEGACY_LITERAL_ACCEPTED, True):
        return None
    if signer_key is not None:
        key = wallet_crypto.public_key_from_hex(signer_key)
        if key is None or not wallet_crypto.signature_valid(key, signature, payload):
            return "bad signature"
        return None
    refusal = "bad signature"
    for one in wallet_store.signing_sessions(db, customer_id):
        key = wallet_crypto.public_key_from_hex(one.session.public_key)
        if key is None or not wallet_crypto.signature_valid(key, signature, payload):
            continue
        if not seams.apply(SESSION_ACTIVE, one.session.status == wallet_store.ACTIVE):
            refusal = "session revoked"
        elif not seams.apply(
            wallet_store.CREDENTIAL_ACTIVE, one.credential_status == wallet_store.ACTIVE
        ):
            refusal = "credential revoked"
        else:
            return None
    return refusal


def verify(request: ApiRequest, operation: str, customer_id: str) -> Authorized:
    """Check a signed retry of ``operation`` by ``customer_id`` and use up its request id;
    401 with the failed check otherwise. Call inside the DB transaction of the operation,
    so a refusal later in it gives the request id back."""
    services = request.services
    seams = services.settings.seams
    db = services.db
    signature = request.headers.get(SIGNATURE_HEADER, "")
    request_id = request.headers.get(REQUEST_ID_HEADER, "")
    if not signature:
        raise Unauthorized("missing wallet signature")
    if not request_id:
        raise Unauthorized("missing request id")
    row = db.fetchone(
        "SELECT * FROM wallet_requests WHERE id = ? AND platform_id = ?",
        (request_id, request.platform.id),
    )
    if row is None:
        raise Unauthorized("unknown request id")
    issued_for = (row["operation"], row["body_sha256"], row["customer_id"])
    bound = issued_for == (operation, body_sha256(request.body), customer_id)
    if not seams.apply(REQUEST_ID_BOUND, bound):
        raise Unauthorized("request id of another operation")
    if row["used"]:
        raise Unauthorized("request id already used")
    if parse_iso(row["expires_at"]) <= utc_now():
        raise Unauthorized("request id expired")
    refusal = seams.apply(
        SIGNER_REFUSAL,
        _signer_refusal(
            seams, db, row["customer_id"], row["signer_key"], row["payload"], signature
        ),
    )
    if refusal is not None:
        raise Unauthorized(refusal)
    # `used = 0` in the condition: of two concurrent retries only one uses the id up.
    if not db.execute(
        "UPDATE wallet_requests SET used = 1 WHERE id = ? AND used = 0", (request_id,)
    ):
        raise Unauthorized("request id already used")
    return Authorized(request_id, from_json(row["context"]))
