"""The key ``conformance receiver`` signs deliveries with, as the service signs its webhooks.

§5 Authentication: the platform decodes the base64 ``X-Service-Signature``, hashes the exact
body with SHA-256 and verifies with the service's public key. The reference signs with
ECDSA P-256 (DER), so this key is a P-256 private key in PEM (PKCS#8). The private key is a
secret: loading it registers its PEM for redaction before anything could print it.
"""

from __future__ import annotations

import base64
import os
from dataclasses import dataclass, field
from pathlib import Path

from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec

from conformance.ground.secrets import register_secret

__all__ = ["SigningKey", "SigningKeyError", "load_signing_key"]


class SigningKeyError(ValueError):
    """The signing key file is missing, unreadable or not a P-256 private key."""


@dataclass(frozen=True, slots=True)
class SigningKey:
    """An ECDSA P-256 private key that signs bodies the way the service does."""

    private_key: ec.EllipticCurvePrivateKey = field(repr=False)

    @classmethod
    def generate(cls) -> SigningKey:
        """A fresh key (another key than the one the platform trusts, or a new one)."""
        return cls(ec.generate_private_key(ec.SECP256R1()))

    def sign(self, body: bytes) -> str:
        """The ``X-Service-Signature`` value for ``body``: base64 of the DER ECDSA signature
        over its SHA-256 hash. Deterministic (RFC 6979): the same key and body give the same
        signature, so a forgery can reuse one a receiver verified, and vectors reproduce."""
        algorithm = ec.ECDSA(hashes.SHA256(), deterministic_signing=True)
        return base64.b64encode(self.private_key.sign(body, algorithm)).decode()

    def public_pem(self) -> str:
        """The public key a platform's test environment must trust (SubjectPublicKeyInfo)."""
        return (
            self.private_key.public_key()
            .public_bytes(
                serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
            )
            .decode("ascii")
        )

    def private_pem(self) -> bytes:
        """The private key as PKCS#8 PEM; registered for redaction before it is returned."""
        pem = self.private_key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
        register_secret(pem.decode("ascii"))
        return pem


def load_signing_key(path: Path, *, create: bool = False) -> SigningKey:
    """The P-256 private key in the PEM file at ``path``; with ``create``, a missing file is
    made with a new key, readable by its owner only."""
    if not path.is_file():
        if not create:
            raise SigningKeyError(f"no such file: {path} (give --new-key to make one)")
        key = SigningKey.generate()
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            with os.fdopen(fd, "wb") as file:
                file.write(key.private_pem())
        except OSError as exc:
            raise SigningKeyError(f"cannot write {path}: {exc.strerror or exc}") from exc
        return key
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise SigningKeyError(f"cannot read {path}: {exc.strerror or exc}") from exc
    register_secret(data.decode("utf-8", errors="replace"))
    try:
        private = serialization.load_pem_private_key(data, password=None)
    except (ValueError, TypeError) as exc:
        raise SigningKeyError(
            f"{path} is not an unencrypted PEM private key ({type(exc).__name__})"
        ) from None
    if not isinstance(private, ec.EllipticCurvePrivateKey) or not isinstance(
        private.curve, ec.SECP256R1
    ):
        raise SigningKeyError(f"{path} holds a {type(private).__name__}; give an EC P-256 key")
    return SigningKey(private)
