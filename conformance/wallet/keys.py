"""P-256 keys of the wallet client (§5 Authentication — embedded wallet): generation, the
hex encodings the reference documents (SEC1 uncompressed ``04…`` / compressed ``02…``/``03…``),
and DER ECDSA / SHA-256 signatures as lower-case hex.

Every private key made here is registered with :mod:`conformance.ground.secrets` at once, so the
evidence redactor scrubs it wherever it could appear.
"""

from __future__ import annotations

from dataclasses import dataclass

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec

from conformance.ground.secrets import register_secret

__all__ = [
    "WalletKey",
    "verify_der_hex",
]

CURVE = ec.SECP256R1()
SCALAR_BYTES = 32


@dataclass(frozen=True, slots=True, repr=False)
class WalletKey:
    """A P-256 key pair held by the suite's wallet client; its repr never shows the key."""

    private: ec.EllipticCurvePrivateKey

    @classmethod
    def generate(cls) -> WalletKey:
        key = cls(ec.generate_private_key(CURVE))
        register_secret(key.private_bytes())
        return key

    @classmethod
    def from_private_bytes(cls, scalar: bytes) -> WalletKey:
        """The key whose private scalar is ``scalar`` (32 bytes, big-endian); raises
        ``ValueError`` when it is not a valid P-256 scalar."""
        register_secret(scalar)
        if len(scalar) != SCALAR_BYTES:
            raise ValueError(f"a P-256 private key is {SCALAR_BYTES} bytes, not {len(scalar)}")
        return cls(ec.derive_private_key(int.from_bytes(scalar, "big"), CURVE))

    def __repr__(self) -> str:
        return f"WalletKey(public={self.public_hex()[:18]}..., private=<redacted>)"

    def private_bytes(self) -> bytes:
        return self.private.private_numbers().private_value.to_bytes(SCALAR_BYTES, "big")

    @property
    def public(self) -> ec.EllipticCurvePublicKey:
        return self.private.public_key()

    def public_bytes(self, *, compressed: bool = False) -> bytes:
        return public_point(self.public, compressed=compressed)

    def public_hex(self, *, compressed: bool = False) -> str:
        return self.public_bytes(compressed=compressed).hex()

    def sign(self, data: bytes | str) -> str:
        """Hex of the DER ECDSA P-256 / SHA-256 signature over ``data`` (text as UTF-8)."""
        raw = data.encode("utf-8") if isinstance(data, str) else data
        return self.private.sign(raw, ec.ECDSA(hashes.SHA256())).hex()

    def sign_raw(self, data: bytes) -> bytes:
        """The DER signature bytes over ``data``."""
        return self.private.sign(data, ec.ECDSA(hashes.SHA256()))


def public_point(key: ec.EllipticCurvePublicKey, *, compressed: bool = False) -> bytes:
    form = (
        serialization.PublicFormat.CompressedPoint
        if compressed
        else serialization.PublicFormat.UncompressedPoint
    )
    return key.public_bytes(serialization.Encoding.X962, form)


def verify_der_hex(key: ec.EllipticCurvePublicKey, signature_hex: object, data: bytes) -> bool:
    """Whether ``signature_hex`` is a valid DER ECDSA / SHA-256 signature by ``key``."""
    if not isinstance(signature_hex, str):
        return False
    try:
        key.verify(bytes.fromhex(signature_hex), data, ec.ECDSA(hashes.SHA256()))
    except (ValueError, InvalidSignature):
        return False
    return True
