"""Ownership verification of external accounts (§2 ExternalAccount statuses, §3 External
account, §4 ``POST /customers/external-accounts/{id}/challenge`` and ``.../verify``, §6
``EXTERNAL_ACCOUNT.STATUS_UPDATED``); SANDBOX.md, "Rule-based accounts, ownership
verification, payout scenarios and incoming payments".

- An account whose primary identifier ends in ``008`` starts
  ``PENDING_OWNERSHIP_VERIFICATION`` (``external_accounts``); every other starts ``ACTIVE``.
- A pending account still receives payouts below the regulatory threshold: less than
  1,000 major units of its currency arriving (``external_accounts.over_threshold``).
- ``challenge`` answers ``{accountId, challenge, payloadToSign, expiresAt}`` (10 minutes);
  ``verify {signature}`` checks, synchronously, a base64 DER ECDSA P-256 / SHA-256
  signature of ``payloadToSign`` against the account's sandbox wallet key (a P-256 key the
  sandbox keeps per account, standing in for the customer's wallet):
  valid → ``ACTIVE``, anything else → ``UNVERIFIED``; both answer ``200`` with the
  ExternalAccount and fire ``EXTERNAL_ACCOUNT.STATUS_UPDATED`` (data: the ExternalAccount).
  An ``ACTIVE`` account, or ``verify`` without an open challenge, answers ``409``.
- ``POST /sandbox/external-accounts/{id}/sign {payload}`` → ``{signature}``: the sandbox
  wallet signs, so the adapter can prove ownership (or fail to, over other bytes).
"""

from __future__ import annotations

import base64
import binascii
import secrets
from datetime import timedelta
from typing import Any

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from starlette.responses import JSONResponse, Response

from reference.accounts import external_accounts
from reference.accounts.external_accounts import ExternalAccount
from reference.kernel.clock import iso, later_than, parse_iso, utc_now
from reference.kernel.db import Database
from reference.kernel.errors import ApiError
from reference.kernel.field_checks import text
from reference.kernel.routing import ApiRequest, Operation, api_route
from reference.kernel.seams import seam
from reference.kernel.services import Services
from reference.kernel.validation import Problems

PENDING = external_accounts.PENDING_OWNERSHIP
UNVERIFIED = "UNVERIFIED"
ACTIVE = external_accounts.ACTIVE
EVENT = "EXTERNAL_ACCOUNT.STATUS_UPDATED"
CHALLENGE_LIFETIME = timedelta(minutes=10)

VERIFIED_STATUS = seam(
    "ownership.verified_status",
    "the status a verify attempt leaves the external account in (context: signature_valid)",
)
STATUS_EVENT = seam(
    "ownership.status_event_data",
    "the data of the EXTERNAL_ACCOUNT.STATUS_UPDATED event a status change fires, None to fire"
    " none (context: before and changed, the ExternalAccount before and after the change)",
)


def _key(db: Database, account_id: str) -> ec.EllipticCurvePrivateKey:
    """The account's sandbox wallet key, created on first use."""
    row = db.fetchone(
        "SELECT private_key_pem FROM ownership_keys WHERE account_id = ?", (account_id,)
    )
    if row is not None:
        loaded = serialization.load_pem_private_key(row["private_key_pem"].encode(), None)
        assert isinstance(loaded, ec.EllipticCurvePrivateKey)
        return loaded
    key = ec.generate_private_key(ec.SECP256R1())
    pem = key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    ).decode()
    db.execute(
        "INSERT INTO ownership_keys (account_id, private_key_pem) VALUES (?, ?)", (account_id, pem)
    )
    return key


def _load(request: ApiRequest) -> ExternalAccount:
    account_id = request.path_params["id"]
    account = external_accounts.load_account(request.services.db, request.platform.id, account_id)
    if account is None:
        raise ApiError(404, "NOT_FOUND", f"no external account {account_id}")
    return account


def _payload(account_id: str, challenge: str) -> str:
    return f"ownership:{account_id}:{challenge}"


def challenge(request: ApiRequest) -> Response:
    """``POST /customers/external-accounts/{id}/challenge`` → what the wallet must sign."""
    db = request.services.db
    with db.transaction():
        account = _load(request)
        if account.status == ACTIVE:
            raise ApiError(
                409, "OWNERSHIP_ALREADY_VERIFIED", f"{account.id} is ACTIVE; nothing to verify"
            )
        _key(db, account.id)
        nonce = secrets.token_hex(16)
        expires = iso(utc_now() + CHALLENGE_LIFETIME)
        db.execute(
            """UPDATE ownership_keys SET challenge = ?, challenge_expires_at = ?
               WHERE account_id = ?""",
            (nonce, expires, account.id),
        )
    body = {
        "accountId": account.id,
        "challenge": nonce,
        "payloadToSign": _payload(account.id, nonce),
        "expiresAt": expires,
    }
    return JSONResponse(body)


def _signature_valid(key: ec.EllipticCurvePrivateKey, payload: str, signature: str) -> bool:
    try:
        raw = base64.b64decode(signature, validate=True)
        key.public_key().verify(raw, payload.encode("utf-8"), ec.ECDSA(hashes.SHA256()))
    except (InvalidSignature, ValueError, binascii.Error):
        return False
    return True


def _change(services: Services, account: ExternalAccount, status: str) -> ExternalAccount:
    """Store ``status`` and fire ``EXTERNAL_ACCOUNT.STATUS_UPDATED`` (inside the caller's
    DB transaction)."""
    stamp = later_than(account.updated_at)
    changed = external_accounts.set_status(services.db, account, status, stamp)
    data: dict[str, Any] | None = services.settings.seams.apply(
        STATUS_EVENT, changed.as_json(), before=account, changed=changed
    )
    if data is not None:
        services.webhooks.enqueue_event(account.platform_id, EVENT, data, timestamp=stamp)
    return changed


def verify(request: ApiRequest) -> Response:
    """``POST /customers/external-accounts/{id}/verify {signature}`` → the ExternalAccount,
    ``ACTIVE`` or ``UNVERIFIED``, decided synchronously."""
    services = request.services
    db, settings = services.db, services.settings
    problems = Problems()
    signature = problems.required(request.body, "signature", "")
    if signature is not None:
        signature = text(problems, "signature", signature)
    problems.raise_if_any()
    assert isinstance(signature, str)
    with db.transaction():
        account = _load(request)
        row = db.fetchone(
            "SELECT challenge, challenge_expires_at FROM ownership_keys WHERE account_id = ?",
            (account.id,),
        )
        if account.status == ACTIVE:
            raise ApiError(409, "OWNERSHIP_ALREADY_VERIFIED", f"{account.id} is ACTIVE")
        if (
            row is None
            or row["challenge"] is None
            or parse_iso(row["challenge_expires_at"]) <= utc_now()
        ):
            raise ApiError(
                409,
                "NO_OPEN_CHALLENGE",
                f"{account.id} has no open challenge: request one first (it lasts 10 minutes)",
            )
        payload = _payload(account.id, row["challenge"])
        valid = _signature_valid(_key(db, account.id), payload, signature)
        db.execute(
            "UPDATE ownership_keys SET challenge = NULL, challenge_expires_at = NULL "
            "WHERE account_id = ?",
            (account.id,),
        )
        status = settings.seams.apply(
            VERIFIED_STATUS, ACTIVE if valid else UNVERIFIED, signature_valid=valid
        )
        account = _change(services, account, status)
    return JSONResponse(account.as_json())


def sign(request: ApiRequest) -> Response:
    """``POST /sandbox/external-accounts/{id}/sign {payload}`` → ``{signature}``."""
    db = request.services.db
    problems = Problems()
    payload = problems.required(request.body, "payload", "")
    if payload is not None:
        payload = problems.string("payload", payload)
    problems.raise_if_any()
    assert isinstance(payload, str)
    with db.transaction():
        account = _load(request)
        key = _key(db, account.id)
    signature = key.sign(payload.encode("utf-8"), ec.ECDSA(hashes.SHA256()))
    return JSONResponse({"signature": base64.b64encode(signature).decode("ascii")})


ROUTES = [
    api_route("/customers/external-accounts/{id}/challenge", Operation("POST", challenge)),
    api_route("/customers/external-accounts/{id}/verify", Operation("POST", verify, body=True)),
    api_route("/sandbox/external-accounts/{id}/sign", Operation("POST", sign, body=True)),
]
