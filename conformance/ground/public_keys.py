"""Public keys a profile names, parsed once and checked where the profile is resolved.

The webhook signing key comes as PEM (text, bytes, a file, or a certificate); a wallet
enclave's key as SEC1 hex on P-256. The sink and the wallet client use the same parsers, so
a key the profile accepts is a key they can use.
"""

from __future__ import annotations

import os
from pathlib import Path

from cryptography import x509
from cryptography.exceptions import UnsupportedAlgorithm
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec, ed25519, rsa

__all__ = ["P256", "PublicKey", "load_public_key", "public_key_from_hex"]

PublicKey = ec.EllipticCurvePublicKey | rsa.RSAPublicKey | ed25519.Ed25519PublicKey
"""The key types a webhook signature can be verified with."""

P256 = ec.SECP256R1()
"""The curve of the embedded wallet's keys (§5 Authentication — embedded wallet)."""

_PEM_MARKER = "-----BEGIN"


def load_public_key(pem_or_path: str | bytes | os.PathLike[str]) -> PublicKey:
    """Load the service's webhook public key.

    Accepts PEM text, PEM bytes, or a path to a PEM file. A ``PUBLIC KEY`` block and a
    ``CERTIFICATE`` block (its subject key is used) are both accepted. PEM text whose line
    breaks were escaped as ``\\n`` (common in environment variables) is accepted too.

    Raises:
        ValueError: naming what was wrong (not PEM and not an existing file, a PEM that does
            not parse, or an unsupported key type).
    """
    if isinstance(pem_or_path, os.PathLike):
        return _load_from_path(Path(pem_or_path))
    if isinstance(pem_or_path, bytes):
        if _PEM_MARKER.encode() not in pem_or_path:
            raise ValueError(
                "webhook public key: the bytes given are not PEM (no '-----BEGIN' line); "
                "pass the PEM text of the key, e.g. '-----BEGIN PUBLIC KEY-----...'"
            )
        return _parse_pem(pem_or_path, source="the PEM bytes given")
    if not isinstance(pem_or_path, str):
        raise ValueError(
            f"webhook public key: expected PEM text, PEM bytes or a file path, "
            f"got {type(pem_or_path).__name__}"
        )
    text = pem_or_path.strip()
    if not text:
        raise ValueError("webhook public key: the value is empty; give PEM text or a file path")
    if _PEM_MARKER in text:
        if "\n" not in text and "\\n" in text:
            text = text.replace("\\n", "\n")
        return _parse_pem(text.encode(), source="the PEM text given")
    return _load_from_path(Path(text))


def _load_from_path(path: Path) -> PublicKey:
    if not path.is_file():
        shown = str(path) if len(str(path)) <= 80 else str(path)[:77] + "..."
        raise ValueError(
            f"webhook public key: {shown!r} is neither PEM text (no '-----BEGIN' line) "
            "nor the path of an existing file"
        )
    data = path.read_bytes()
    if _PEM_MARKER.encode() not in data:
        raise ValueError(f"webhook public key: the file {str(path)!r} holds no PEM block")
    return _parse_pem(data, source=f"the file {str(path)!r}")


def _parse_pem(data: bytes, *, source: str) -> PublicKey:
    try:
        if b"-----BEGIN CERTIFICATE" in data:
            key: object = x509.load_pem_x509_certificate(data).public_key()
        else:
            key = serialization.load_pem_public_key(data)
    except (ValueError, TypeError, UnsupportedAlgorithm) as exc:
        raise ValueError(
            f"webhook public key: {source} does not parse as a PEM public key or "
            f"certificate ({exc})"
        ) from exc
    if isinstance(key, ec.EllipticCurvePublicKey | rsa.RSAPublicKey | ed25519.Ed25519PublicKey):
        return key
    raise ValueError(
        f"webhook public key: {source} holds a {type(key).__name__}; supported key types "
        "are EC (ECDSA), RSA and Ed25519"
    )


def public_key_from_hex(text: object) -> ec.EllipticCurvePublicKey | None:
    """The P-256 public key a SEC1 hex string (compressed or uncompressed) encodes, or None."""
    if not isinstance(text, str):
        return None
    try:
        return ec.EllipticCurvePublicKey.from_encoded_point(P256, bytes.fromhex(text))
    except ValueError:
        return None
