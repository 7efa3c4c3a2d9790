"""HPKE as the wallet formats use it (§5 Authentication — embedded wallet, items 1 and 4):
base mode, DHKEM(P-256, HKDF-SHA256) / HKDF-SHA256 / AES-256-GCM by default.

The ``info`` string and the associated data are the target's choice; the defaults are the
reference's (``info`` = ``service_hpke``, aad = encapsulated key ‖ receiver public key, both
uncompressed) and an adapter changes them through ``pytest_conformance_wallet_format``.
"""

from __future__ import annotations

from dataclasses import dataclass

from pyhpke import AEADId, CipherSuite, KDFId, KEMId, KEMKeyInterface, PyHPKEError

from conformance.wallet.keys import WalletKey

__all__ = ["AAD_MODES", "HpkeError", "HpkeParams", "open_sealed", "seal"]

DEFAULT_INFO = b"service_hpke"
# how the associated data is built: encapsulated key ‖ receiver key, or nothing
AAD_MODES = ("enc+receiver", "none")
_AEADS = {"AES-256-GCM": AEADId.AES256_GCM, "AES-128-GCM": AEADId.AES128_GCM}


class HpkeError(ValueError):
    """A ciphertext that does not open (wrong key, tampered, malformed)."""


@dataclass(frozen=True, slots=True)
class HpkeParams:
    """The HPKE choices a target makes (defaults: the reference's)."""

    info: bytes = DEFAULT_INFO
    aad_mode: str = "enc+receiver"
    aead: str = "AES-256-GCM"

    def suite(self) -> CipherSuite:
        return CipherSuite.new(KEMId.DHKEM_P256_HKDF_SHA256, KDFId.HKDF_SHA256, _AEADS[self.aead])

    def aad(self, enc: bytes, receiver_public: bytes) -> bytes:
        return enc + receiver_public if self.aad_mode == "enc+receiver" else b""


def _kem_public(suite: CipherSuite, point: bytes) -> KEMKeyInterface:
    return suite.kem.deserialize_public_key(point)


def seal(
    receiver_public: bytes,
    plaintext: bytes,
    params: HpkeParams | None = None,
    *,
    aad: bytes | None = None,
) -> tuple[bytes, bytes]:
    """Seal ``plaintext`` to the uncompressed P-256 point ``receiver_public``: (enc, ct).
    ``aad`` replaces the associated data the parameters would build."""
    params = params or HpkeParams()
    suite = params.suite()
    enc, sender = suite.create_sender_context(_kem_public(suite, receiver_public), params.info)
    return enc, sender.seal(plaintext, params.aad(enc, receiver_public) if aad is None else aad)


def open_sealed(
    receiver: WalletKey,
    enc: bytes,
    ciphertext: bytes,
    params: HpkeParams | None = None,
    *,
    aad: bytes | None = None,
) -> bytes:
    """Open what was sealed to ``receiver``; raises :class:`HpkeError` when it does not open."""
    params = params or HpkeParams()
    suite = params.suite()
    data = params.aad(enc, receiver.public_bytes()) if aad is None else aad
    try:
        skr = suite.kem.deserialize_private_key(receiver.private_bytes())
        recipient = suite.create_recipient_context(enc, skr, params.info)
        return recipient.open(ciphertext, data)
    except (PyHPKEError, ValueError) as exc:
        raise HpkeError(f"HPKE open failed ({type(exc).__name__})") from None
