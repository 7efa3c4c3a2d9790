"""The webhook signing key: ECDSA P-256, generated once and kept in the database.

A delivery's ``X-Service-Signature`` is base64 of the DER signature over SHA-256 of the
exact body bytes (§5 Webhook signature; SANDBOX.md, "Webhooks").
"""

from __future__ import annotations

import base64

from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec

from reference.kernel.clock import iso, utc_now
from reference.kernel.db import Database

SCHEMA = (
    """CREATE TABLE IF NOT EXISTS signing_keys (
        name TEXT PRIMARY KEY,
        private_pem TEXT NOT NULL,
        created_at TEXT NOT NULL
    )""",
)

_WEBHOOK_KEY = "webhook"


def load_or_create_webhook_key(db: Database) -> ec.EllipticCurvePrivateKey:
    """The webhook key of this database; the first call generates and stores it, so a
    restart with the same file publishes the same public key."""
    return load_or_create_key(db, _WEBHOOK_KEY)


def load_or_create_key(db: Database, name: str) -> ec.EllipticCurvePrivateKey:
    """The P-256 key stored under ``name`` (the webhook key, the wallet enclave key); the
    first call generates and stores it."""
    with db.transaction():
        row = db.fetchone("SELECT private_pem FROM signing_keys WHERE name = ?", (name,))
        if row is not None:
            key = serialization.load_pem_private_key(row["private_pem"].encode(), password=None)
            assert isinstance(key, ec.EllipticCurvePrivateKey)
            return key
        key = ec.generate_private_key(ec.SECP256R1())
        pem = key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        ).decode()
        db.execute(
            "INSERT INTO signing_keys (name, private_pem, created_at) VALUES (?, ?, ?)",
            (name, pem, iso(utc_now())),
        )
        return key


def public_key_pem(key: ec.EllipticCurvePrivateKey) -> str:
    """The SubjectPublicKeyInfo PEM that platforms verify deliveries with."""
    return (
        key.public_key()
        .public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)
        .decode()
    )


def sign(key: ec.EllipticCurvePrivateKey, body: bytes) -> str:
    """The ``X-Service-Signature`` value for ``body``."""
    return base64.b64encode(key.sign(body, ec.ECDSA(hashes.SHA256()))).decode("ascii")
