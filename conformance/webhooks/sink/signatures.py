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
from dataclasses import dataclass

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec, ed25519, padding, rsa, utils

from conformance.ground.public_keys import PublicKey, load_public_key

__all__ = ["SIGNATURE_HEADER", "PublicKey", "SignatureCheck", "load_public_key", "verify_signature"]

SIGNATURE_HEADER = "X-Service-Signature"
"""The header that carries the webhook signature (§5 Authentication)."""


@dataclass(frozen=True, slots=True)
class SignatureCheck:
    """The outcome of checking one delivery's signature.

    ``reason`` says why a signature was rejected, or how it verified.
    """

    valid: bool
    reason: str

    def __bool__(self) -> bool:
        return self.valid


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
