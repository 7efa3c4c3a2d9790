"""Platforms (API clients) and their credentials, seeded at start-up.

The sandbox hosts two platforms, ``primary`` and ``second``, so isolation between
platforms can be tested; each has one sandbox and one production credential pair (§5:
credentials are bound to one environment).
"""

from __future__ import annotations

import hashlib
import secrets
import sqlite3
import uuid
from dataclasses import dataclass

from reference.kernel.clock import iso, utc_now
from reference.kernel.db import Database

PRIMARY = "primary"
SECOND = "second"
ROLES = (PRIMARY, SECOND)
SANDBOX = "sandbox"
PRODUCTION = "production"
_TOKEN_PREFIX = {SANDBOX: "tok_sbx_", PRODUCTION: "tok_prd_"}

SCHEMA = (
    """CREATE TABLE IF NOT EXISTS platforms (
        id TEXT PRIMARY KEY,
        role TEXT NOT NULL UNIQUE,
        created_at TEXT NOT NULL
    )""",
    # `secret` is kept in clear only so `serve` can print the same credentials again after
    # a restart; authentication compares `secret_sha256` alone.
    """CREATE TABLE IF NOT EXISTS credentials (
        token_id TEXT PRIMARY KEY,
        platform_id TEXT NOT NULL REFERENCES platforms(id),
        environment TEXT NOT NULL CHECK (environment IN ('sandbox', 'production')),
        secret_sha256 TEXT NOT NULL,
        secret TEXT NOT NULL,
        created_at TEXT NOT NULL,
        UNIQUE (platform_id, environment)
    )""",
)


@dataclass(frozen=True, slots=True)
class Platform:
    """An API client of the service; every resource belongs to exactly one."""

    id: str
    role: str


@dataclass(frozen=True, slots=True)
class Credential:
    """A credential pair as the start-up banner prints it."""

    token_id: str
    secret: str


@dataclass(frozen=True, slots=True)
class StoredCredential:
    """What authentication needs to know about a token id."""

    platform: Platform
    environment: str
    secret_sha256: str


class CredentialConflictError(ValueError):
    """A fixed token id given on the command line already belongs to another credential."""


def hash_secret(secret: str) -> str:
    """The stored form of a secret."""
    return hashlib.sha256(secret.encode("utf-8")).hexdigest()


def seed_platforms(db: Database) -> dict[str, Platform]:
    """Create the two platforms if this database has none yet; return them by role."""
    with db.transaction():
        for role in ROLES:
            db.execute(
                "INSERT OR IGNORE INTO platforms (id, role, created_at) VALUES (?, ?, ?)",
                (uuid.uuid4().hex, role, iso(utc_now())),
            )
        rows = db.fetchall("SELECT id, role FROM platforms")
    return {row["role"]: Platform(row["id"], row["role"]) for row in rows}


def seed_credentials(
    db: Database, platform: Platform, environment: str, fixed: Credential | None = None
) -> Credential:
    """The platform's credential for ``environment``: ``fixed`` if given, else the stored
    one, else a fresh random pair."""
    with db.transaction():
        row = db.fetchone(
            "SELECT token_id, secret FROM credentials WHERE platform_id = ? AND environment = ?",
            (platform.id, environment),
        )
        if fixed is None and row is not None:
            return Credential(row["token_id"], row["secret"])
        wanted = fixed or Credential(
            _TOKEN_PREFIX[environment] + secrets.token_hex(12), secrets.token_urlsafe(32)
        )
        try:
            db.execute(
                """INSERT INTO credentials
                   (token_id, platform_id, environment, secret_sha256, secret, created_at)
                   VALUES (?, ?, ?, ?, ?, ?)
                   ON CONFLICT (platform_id, environment) DO UPDATE SET
                     token_id = excluded.token_id, secret_sha256 = excluded.secret_sha256,
                     secret = excluded.secret""",
                (
                    wanted.token_id,
                    platform.id,
                    environment,
                    hash_secret(wanted.secret),
                    wanted.secret,
                    iso(utc_now()),
                ),
            )
        except sqlite3.IntegrityError as exc:
            raise CredentialConflictError(
                f"token id {wanted.token_id!r} already belongs to another credential"
            ) from exc
        return wanted


def load_credentials(db: Database) -> dict[str, StoredCredential]:
    """Every credential by token id, with its platform."""
    rows = db.fetchall(
        """SELECT c.token_id, c.environment, c.secret_sha256, p.id, p.role
           FROM credentials c JOIN platforms p ON p.id = c.platform_id"""
    )
    return {
        row["token_id"]: StoredCredential(
            Platform(row["id"], row["role"]), row["environment"], row["secret_sha256"]
        )
        for row in rows
    }


def platform_by_role(db: Database, role: str) -> Platform:
    """The seeded platform playing ``role``."""
    row = db.fetchone("SELECT id, role FROM platforms WHERE role = ?", (role,))
    if row is None:
        raise LookupError(f"no platform with role {role!r}; was the database seeded?")
    return Platform(row["id"], row["role"])


def all_platforms(db: Database) -> list[Platform]:
    """Every platform, primary first."""
    rows = db.fetchall("SELECT id, role FROM platforms ORDER BY role")
    return [Platform(row["id"], row["role"]) for row in rows]
