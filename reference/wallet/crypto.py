"""The cryptography of embedded-wallet authentication (§5; SANDBOX.md, "Embedded wallet
authentication"): P-256 keys in hex, HPKE sealing and opening, enclave-signed bundles and
wallet signatures.

HPKE is mode base with DHKEM(P-256, HKDF-SHA256), HKDF-SHA256 and AES-256-GCM, ``info``
``b"service_hpke"`` and ``aad`` = encapsulated key ‖ receiver key (both uncompressed).
pyhpke's one-shot ``seal``/``open`` are not implemented, hence the explicit contexts.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature
from pyhpke import AEADId, CipherSuite, KDFId, KEMId, KEMKey

from reference.kernel.db import Database
from reference.kernel.request_body import strict_loads
from reference.webhooks.signing import load_or_create_key

HPKE_INFO = b"service_hpke"
BUNDLE_VERSION = "v1.0.0"
COMPRESSED_HEX = 66
_SUITE = CipherSuite.new(KEMId.DHKEM_P256_HKDF_SHA256, KDFId.HKDF_SHA256, AEADId.AES256_GCM)
# The enclave key shares the webhook key's table (reference.webhooks.signing) under its own name.
_ENCLAVE_KEY = "wallet_enclave"
_HEX_DIGITS = frozenset("0123456789abcdefABCDEF")


class DecryptionFailed(Exception):
    """An HPKE payload that cannot be opened: a malformed encapsulated key or a failed open."""


class MalformedEncapsulatedKey(DecryptionFailed):
    """The encapsulated key is not a P-256 point (pyhpke raises ValueError for it)."""


def hex_bytes(text: Any) -> bytes | None:
    """The bytes of an even-length hex string, or None for anything else."""
    if not isinstance(text, str) or len(text) % 2 or not set(text) <= _HEX_DIGITS:
        return None
    return bytes.fromhex(text)


def public_key_from_hex(text: Any) -> ec.EllipticCurvePublicKey | None:
    """A P-256 public key from the hex of its SEC1 point, compressed or not; else None."""
    raw = hex_bytes(text)
    if raw is None or len(raw) not in (33, 65):
        return None
    try:
        return ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), raw)
    except ValueError:
        return None


def is_compressed_hex(text: str) -> bool:
    """Whether a public key's hex is the compressed form (``02``/``03``, 33 bytes)."""
    return len(text) == COMPRESSED_HEX and text[:2] in ("02", "03")


def public_hex(key: ec.EllipticCurvePublicKey, *, compressed: bool = False) -> str:
    """Lower-case hex of the SEC1 point."""
    form = (
        serialization.PublicFormat.CompressedPoint
        if compressed
        else serialization.PublicFormat.UncompressedPoint
    )
    return key.public_bytes(serialization.Encoding.X962, form).hex()


def private_scalar(key: ec.EllipticCurvePrivateKey) -> bytes:
    """The 32-byte big-endian private scalar (what a session key or an export carries)."""
    return key.private_numbers().private_value.to_bytes(32, "big")


def private_from_scalar_hex(text: str) -> ec.EllipticCurvePrivateKey:
    """The key stored as the hex of its scalar."""
    return ec.derive_private_key(int(text, 16), ec.SECP256R1())


def new_key() -> ec.EllipticCurvePrivateKey:
    """A fresh P-256 key."""
    return ec.generate_private_key(ec.SECP256R1())


@dataclass(frozen=True, slots=True)
class Sealed:
    """An HPKE ciphertext with its encapsulated key."""

    encapped: bytes
    ciphertext: bytes


def seal(receiver: ec.EllipticCurvePublicKey, plaintext: bytes) -> Sealed:
    """HPKE-seal ``plaintext`` to ``receiver``."""
    encapped, context = _SUITE.create_sender_context(
        KEMKey.from_pyca_cryptography_key(receiver), HPKE_INFO
    )
    aad = encapped + bytes.fromhex(public_hex(receiver))
    return Sealed(encapped, context.seal(plaintext, aad=aad))


def open_sealed(receiver: ec.EllipticCurvePrivateKey, sealed: Sealed) -> bytes:
    """The plaintext of ``sealed``, or ``DecryptionFailed``.

    pyhpke raises ValueError (not OpenError) for a malformed encapsulated key; both are the
    client's doing: ``MalformedEncapsulatedKey``, caused by pyhpke's own error.
    """
    aad = sealed.encapped + bytes.fromhex(public_hex(receiver.public_key()))
    try:
        context = _SUITE.create_recipient_context(
            sealed.encapped, KEMKey.from_pyca_cryptography_key(receiver), HPKE_INFO
        )
    except Exception as exc:  # ValueError, or pyhpke's own errors for odd lengths
        raise MalformedEncapsulatedKey(str(exc)) from exc
    try:
        return bytes(context.open(sealed.ciphertext, aad=aad))
    except Exception as exc:  # OpenError, and anything else a hostile ciphertext causes
        raise DecryptionFailed(str(exc)) from exc


def sealed_from_json(value: Any) -> Sealed | None:
    """``{"encappedPublic": hex, "ciphertext": hex}`` as a JSON string or object; else None."""
    if isinstance(value, str):
        try:
            value = strict_loads(value)
        except (ValueError, RecursionError):
            return None
    if not isinstance(value, dict):
        return None
    encapped = hex_bytes(value.get("encappedPublic"))
    ciphertext = hex_bytes(value.get("ciphertext"))
    if encapped is None or ciphertext is None or not encapped or not ciphertext:
        return None
    return Sealed(encapped, ciphertext)


def load_or_create_enclave_key(db: Database) -> ec.EllipticCurvePrivateKey:
    """The sandbox enclave's signing key, generated once and kept in the database so a
    restart with the same file publishes the same public key."""
    return load_or_create_key(db, _ENCLAVE_KEY)


def enclave_public_hex(db: Database) -> str:
    """The enclave's uncompressed public key hex (start-up line ``wallet_enclave_public_key``)."""
    return public_hex(load_or_create_enclave_key(db).public_key())


def bundle(db: Database, data: dict[str, Any]) -> str:
    """An enclave-signed bundle (a JSON string) carrying ``data``."""
    key = load_or_create_enclave_key(db)
    raw = json.dumps(data, separators=(",", ":")).encode()
    signature = key.sign(raw, ec.ECDSA(hashes.SHA256()))
    return json.dumps(
        {
            "version": BUNDLE_VERSION,
            "data": raw.hex(),
            "dataSignature": signature.hex(),
            "enclaveQuorumPublic": public_hex(key.public_key()),
        },
        separators=(",", ":"),
    )


def sealed_bundle(
    db: Database, receiver: ec.EllipticCurvePublicKey, plaintext: bytes, customer_id: str
) -> str:
    """An enclave-signed bundle of ``plaintext`` HPKE-sealed to ``receiver``."""
    sealed = seal(receiver, plaintext)
    return bundle(
        db,
        {
            "encappedPublic": sealed.encapped.hex(),
            "ciphertext": sealed.ciphertext.hex(),
            "customerId": customer_id,
        },
    )


# A raw ECDSA P-256 signature: r and s, 32 bytes each, big-endian (IEEE P1363, WebCrypto's).
_RAW_HALF = 32


def signature_valid(key: ec.EllipticCurvePublicKey, signature_hex: str, payload: str) -> bool:
    """Whether ``signature_hex`` is an ECDSA P-256/SHA-256 signature of ``payload``: DER, or
    raw ``r || s`` (64 bytes). §5 item 4 names no encoding, so both are taken."""
    signature = hex_bytes(signature_hex)
    if not signature:
        return False
    candidates = [signature]
    if len(signature) == 2 * _RAW_HALF:
        r = int.from_bytes(signature[:_RAW_HALF], "big")
        s = int.from_bytes(signature[_RAW_HALF:], "big")
        candidates.append(encode_dss_signature(r, s))
    for candidate in candidates:
        try:
            key.verify(candidate, payload.encode(), ec.ECDSA(hashes.SHA256()))
        except (InvalidSignature, ValueError):
            continue
        return True
    return False
