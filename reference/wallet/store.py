"""Credentials and sessions of embedded-wallet authentication as stored, read and rendered
(SANDBOX.md, "Credentials, sessions and who owns them")."""

from __future__ import annotations

import sqlite3
import uuid
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from reference.kernel.clock import iso, parse_iso, utc_now
from reference.kernel.db import Database, from_json, to_json
from reference.kernel.errors import ApiError
from reference.kernel.seams import seam

ACTIVE = "ACTIVE"
REVOKED = "REVOKED"
EMAIL_OTP = "EMAIL_OTP"
SMS_OTP = "SMS_OTP"
PASSKEY = "PASSKEY"
OAUTH = "OAUTH"
TYPES = (EMAIL_OTP, SMS_OTP, PASSKEY, OAUTH)
SESSION_LIFETIME = timedelta(hours=24)

CREDENTIAL_ACTIVE = seam(
    "wallet.credential_active",
    "whether a credential in use (challenged, verified, or behind a signing session's key)"
    " is still active, not revoked",
)


@dataclass(frozen=True, slots=True)
class Credential:
    """One registered credential; ``details`` is its per-type part."""

    id: str
    platform_id: str
    customer_id: str
    type: str
    status: str
    details: dict[str, Any]
    created_at: str


@dataclass(frozen=True, slots=True)
class Session:
    """One session: the public half of its signing key and whose it is."""

    id: str
    platform_id: str
    customer_id: str
    credential_id: str
    public_key: str
    status: str
    created_at: str
    expires_at: str

    @property
    def expired(self) -> bool:
        """Whether the session is past ``expiresAt``."""
        return parse_iso(self.expires_at) <= utc_now()


def _credential(row: sqlite3.Row) -> Credential:
    return Credential(
        id=row["id"],
        platform_id=row["platform_id"],
        customer_id=row["customer_id"],
        type=row["type"],
        status=row["status"],
        details=from_json(row["details"]),
        created_at=row["created_at"],
    )


def _session(row: sqlite3.Row) -> Session:
    return Session(**{name: row[name] for name in Session.__slots__})


def create_credential(
    db: Database, platform_id: str, customer_id: str, kind: str, details: dict[str, Any]
) -> Credential:
    """Store an ``ACTIVE`` credential."""
    credential = Credential(
        id=f"Credential:{uuid.uuid4()}",
        platform_id=platform_id,
        customer_id=customer_id,
        type=kind,
        status=ACTIVE,
        details=details,
        created_at=iso(utc_now()),
    )
    db.execute(
        """INSERT INTO wallet_credentials (id, platform_id, customer_id, type, status, details,
           created_at) VALUES (?, ?, ?, ?, ?, ?, ?)""",
        (
            credential.id,
            platform_id,
            customer_id,
            kind,
            ACTIVE,
            to_json(details),
            credential.created_at,
        ),
    )
    return credential


def load_credential(db: Database, platform_id: str, credential_id: str) -> Credential:
    """The platform's credential, or 404 (another platform's too)."""
    row = db.fetchone(
        "SELECT * FROM wallet_credentials WHERE id = ? AND platform_id = ?",
        (credential_id, platform_id),
    )
    if row is None:
        raise ApiError(404, "NOT_FOUND", f"no credential {credential_id}")
    return _credential(row)


def has_active_credential(db: Database, customer_id: str) -> bool:
    """Whether the customer holds an ``ACTIVE`` credential (a new one then needs signing)."""
    row = db.fetchone(
        "SELECT 1 FROM wallet_credentials WHERE customer_id = ? AND status = ?",
        (customer_id, ACTIVE),
    )
    return row is not None


def passkey_id_taken(db: Database, webauthn_id: str) -> bool:
    """Whether an ``ACTIVE`` passkey already has this WebAuthn credential id."""
    rows = db.fetchall(
        "SELECT details FROM wallet_credentials WHERE type = ? AND status = ?", (PASSKEY, ACTIVE)
    )
    return any(from_json(row["details"]).get("credentialId") == webauthn_id for row in rows)


def update_details(db: Database, credential: Credential, details: dict[str, Any]) -> None:
    """Replace the per-type part (a passkey's sign count moves on)."""
    db.execute(
        "UPDATE wallet_credentials SET details = ? WHERE id = ?", (to_json(details), credential.id)
    )


def revoke_credential(db: Database, credential: Credential) -> Credential:
    """Mark the credential ``REVOKED``; its sessions stop working with it."""
    db.execute("UPDATE wallet_credentials SET status = ? WHERE id = ?", (REVOKED, credential.id))
    return load_credential(db, credential.platform_id, credential.id)


def render_credential(credential: Credential) -> dict[str, Any]:
    """The credential response body."""
    body: dict[str, Any] = {
        "id": credential.id,
        "customerId": credential.customer_id,
        "type": credential.type,
        "status": credential.status,
        "createdAt": credential.created_at,
    }
    details = credential.details
    if credential.type == OAUTH:
        body["oauth"] = {key: details[key] for key in ("iss", "aud", "sub")}
    elif credential.type == PASSKEY:
        body["passkey"] = {key: details[key] for key in ("credentialId", "signCount")}
    elif credential.type == EMAIL_OTP:
        body["email"] = details.get("email")
    else:
        body["phoneNumber"] = details.get("phoneNumber")
    return body


def create_session(db: Database, credential: Credential, public_key_hex: str) -> Session:
    """Open an ``ACTIVE`` session of ``credential`` signing with ``public_key_hex``."""
    now = utc_now()
    session = Session(
        id=f"Session:{uuid.uuid4()}",
        platform_id=credential.platform_id,
        customer_id=credential.customer_id,
        credential_id=credential.id,
        public_key=public_key_hex,
        status=ACTIVE,
        created_at=iso(now),
        expires_at=iso(now + SESSION_LIFETIME),
    )
    db.execute(
        """INSERT INTO wallet_sessions (id, platform_id, customer_id, credential_id, public_key,
           status, created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)""",
        tuple(getattr(session, name) for name in Session.__slots__),
    )
    return session


def load_session(db: Database, platform_id: str, session_id: str) -> Session:
    """The platform's session, or 404 (another platform's too)."""
    row = db.fetchone(
        "SELECT * FROM wallet_sessions WHERE id = ? AND platform_id = ?", (session_id, platform_id)
    )
    if row is None:
        raise ApiError(404, "NOT_FOUND", f"no session {session_id}")
    return _session(row)


def revoke_session(db: Database, session: Session) -> Session:
    """Mark the session ``REVOKED``."""
    db.execute("UPDATE wallet_sessions SET status = ? WHERE id = ?", (REVOKED, session.id))
    return load_session(db, session.platform_id, session.id)


@dataclass(frozen=True, slots=True)
class SigningSession:
    """A session whose key may sign for its customer, with what revocation applies."""

    session: Session
    credential_status: str


def signing_sessions(db: Database, customer_id: str) -> list[SigningSession]:
    """The customer's unexpired sessions (revoked ones too: the caller names the refusal)."""
    rows = db.fetchall(
        """SELECT s.*, c.status AS credential_status FROM wallet_sessions s
           JOIN wallet_credentials c ON c.id = s.credential_id
           WHERE s.customer_id = ? ORDER BY s.seq""",
        (customer_id,),
    )
    found = [SigningSession(_session(row), row["credential_status"]) for row in rows]
    return [one for one in found if not one.session.expired]


def render_session(session: Session) -> dict[str, Any]:
    """The session response body."""
    return {
        "id": session.id,
        "credentialId": session.credential_id,
        "customerId": session.customer_id,
        "publicKey": session.public_key,
        "status": session.status,
        "createdAt": session.created_at,
        "expiresAt": session.expires_at,
    }
