"""Verification of the ``X-Service-Signature`` header (§5 Authentication, webhook signature).

The interface says: decode the base64 signature, compute a SHA-256 hash of the exact request
body, and verify the signature with the service public key over that hash. It names no
curve or algorithm, so the algorithm follows the key type:

- EC keys (the reference signs with ECDSA P-256): the DER signature is verified with
  ``ECDSA(Prehashed(SHA256))`` over the digest. A raw ``r || s`` signature of the curve's
  size is accepted as the other common encoding.
- RSA keys: PKCS#1 v1.5 over the digest (``Prehashed(SHA256)``); PSS is accepted too.
- Ed25519 keys: over the body bytes (Ed25519 hashes internally); a signature over the
  digest is accepted too.

A bad signature is never an exception: :func:`verify_signature` returns a
:class:`SignatureCheck` with ``valid=False`` and a reason a report can show.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import os
from dataclasses import dataclass
from pathlib import Path

from cryptography import x509
from cryptography.exceptions import InvalidSignature, UnsupportedAlgorithm
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, ed25519, padding, rsa, utils

__all__ = ["SIGNATURE_HEADER", "PublicKey", "SignatureCheck", "load_public_key", "verify_signature"]

SIGNATURE_HEADER = "X-Service-Signature"
"""The header that carries the webhook signature (§5 Authentication)."""

PublicKey = ec.EllipticCurvePublicKey | rsa.RSAPublicKey | ed25519.Ed25519PublicKey
"""The key types a webhook signature can be verified with."""

_PEM_MARKER = "-----BEGIN"


@dataclass(frozen=True, slots=True)
class SignatureCheck:
    """The outcome of checking one delivery's signature.

    ``reason`` says why a signature was rejected, or how it verified.
    """

    valid: bool
    reason: str

    def __bool__(self) -> bool:
        return self.valid


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


def _decode_header(header_value: str) -> bytes:
    """Decode standard or URL-safe base64, tolerating missing padding."""
    compact = "".join(header_value.split())
    padded = compact + "=" * (-len(compact) % 4)
    try:
        return base64.b64decode(padded, validate=True)
    except (binascii.Error, ValueError):
        return base64.b64decode(padded, altchars=b"-_", validate=True)


def verify_signature(
    public_key: PublicKey, body: bytes, header_value: str | None
) -> SignatureCheck:
    """Check ``header_value`` (the ``X-Service-Signature`` header) against ``body``.

    Never raises for a bad or malformed signature: the result says why it was rejected.
    """
    if header_value is None:
        return SignatureCheck(False, f"missing {SIGNATURE_HEADER} header")
    if not header_value.strip():
        return SignatureCheck(False, f"empty {SIGNATURE_HEADER} header")
    try:
        signature = _decode_header(header_value)
    except (binascii.Error, ValueError):
        return SignatureCheck(False, f"{SIGNATURE_HEADER} is not valid base64")
    if not signature:
        return SignatureCheck(False, f"{SIGNATURE_HEADER} decodes to an empty signature")
    digest = hashlib.sha256(body).digest()
    try:
        if isinstance(public_key, ec.EllipticCurvePublicKey):
            return _verify_ec(public_key, signature, digest)
        if isinstance(public_key, rsa.RSAPublicKey):
            return _verify_rsa(public_key, signature, digest)
        if isinstance(public_key, ed25519.Ed25519PublicKey):
            return _verify_ed25519(public_key, signature, body, digest)
    except Exception as exc:  # a broken key or backend must not escape as a crash
        return SignatureCheck(False, f"signature check failed: {type(exc).__name__}: {exc}")
    return SignatureCheck(False, f"unsupported public key type {type(public_key).__name__}")


def _verify_ec(key: ec.EllipticCurvePublicKey, signature: bytes, digest: bytes) -> SignatureCheck:
    algorithm = ec.ECDSA(utils.Prehashed(hashes.SHA256()))
    curve = key.curve.name
    try:
        key.verify(signature, digest, algorithm)
        return SignatureCheck(True, f"ECDSA {curve} (DER) over SHA-256 of the body verifies")
    except InvalidSignature:
        pass
    size = (key.curve.key_size + 7) // 8
    if len(signature) == 2 * size:
        r = int.from_bytes(signature[:size], "big")
        s = int.from_bytes(signature[size:], "big")
        try:
            key.verify(utils.encode_dss_signature(r, s), digest, algorithm)
            return SignatureCheck(
                True, f"ECDSA {curve} (raw r||s) over SHA-256 of the body verifies"
            )
        except (InvalidSignature, ValueError):
            pass
    return SignatureCheck(
        False, f"signature does not verify over SHA-256 of the body (ECDSA {curve} key)"
    )


def _verify_rsa(key: rsa.RSAPublicKey, signature: bytes, digest: bytes) -> SignatureCheck:
    prehashed = utils.Prehashed(hashes.SHA256())
    try:
        key.verify(signature, digest, padding.PKCS1v15(), prehashed)
        return SignatureCheck(True, "RSA PKCS#1 v1.5 over SHA-256 of the body verifies")
    except InvalidSignature:
        pass
    pss = padding.PSS(mgf=padding.MGF1(hashes.SHA256()), salt_length=padding.PSS.AUTO)
    try:
        key.verify(signature, digest, pss, prehashed)
        return SignatureCheck(True, "RSA PSS over SHA-256 of the body verifies")
    except InvalidSignature:
        pass
    return SignatureCheck(
        False, f"signature does not verify over SHA-256 of the body (RSA {key.key_size} key)"
    )


def _verify_ed25519(
    key: ed25519.Ed25519PublicKey, signature: bytes, body: bytes, digest: bytes
) -> SignatureCheck:
    try:
        key.verify(signature, body)
        return SignatureCheck(True, "Ed25519 over the body verifies")
    except InvalidSignature:
        pass
    try:
        key.verify(signature, digest)
        return SignatureCheck(True, "Ed25519 over SHA-256 of the body verifies")
    except InvalidSignature:
        pass
    return SignatureCheck(False, "signature does not verify over the body (Ed25519 key)")
