"""The embedded-wallet encodings §5 leaves open, as one value object.

The defaults are the reference's documented choices (SANDBOX.md, "Embedded wallet
authentication: the reference's choices"); a target that chose differently returns
overrides from the adapter hook ``pytest_conformance_wallet_format``.
"""

from __future__ import annotations

import base64
from collections.abc import Mapping
from dataclasses import dataclass, fields, replace
from typing import Any

from conformance.ground import hookspecs
from conformance.wallet.hpke import AAD_MODES, HpkeParams

__all__ = ["FORMAT_HOOK", "SIGNATURE_ENCODINGS", "WalletFormat", "wallet_format"]

FORMAT_HOOK = hookspecs.pytest_conformance_wallet_format
SIGNATURE_ENCODINGS = ("der-hex", "der-base64")


@dataclass(frozen=True, slots=True)
class WalletFormat:
    """How the target encodes what §5 names but does not show."""

    # HPKE (§5 item 1 "HPKE-encrypts"; the suite, info and aad are not shown)
    hpke_info: str = "service_hpke"
    hpke_aad: str = "enc+receiver"
    hpke_aead: str = "AES-256-GCM"
    # the sealed JSON objects: {"<enc field>": hex, "<ciphertext field>": hex}
    sealed_enc_field: str = "encappedPublic"
    sealed_ciphertext_field: str = "ciphertext"
    # bundles from the service are enclave-signed JSON {version, data, dataSignature, ...}
    enclave_signed_bundles: bool = True
    # Service-Wallet-Signature: DER ECDSA P-256 / SHA-256, hex (or base64)
    signature_encoding: str = "der-hex"
    # the sandbox's fixed OTP code (§5 item 5 states 000000)
    sandbox_otp_code: str = "000000"
    # §2 InternalAccount: the wallet privacy flag ("exact field name of the flag: not shown")
    privacy_field: str = "privateEnabled"
    # where the verify answer holds the session (not shown); its id revokes it
    session_field: str = "session"

    @property
    def hpke(self) -> HpkeParams:
        return HpkeParams(self.hpke_info.encode("utf-8"), self.hpke_aad, self.hpke_aead)

    def encode_signature(self, der: bytes) -> str:
        if self.signature_encoding == "der-base64":
            return base64.b64encode(der).decode("ascii")
        return der.hex()


def wallet_format(overrides: Mapping[str, Any] | None) -> WalletFormat:
    """The reference's format with the adapter's ``overrides``; ``ValueError`` naming a key
    the suite does not know or a value it cannot use."""
    if not overrides:
        return WalletFormat()
    known = {f.name for f in fields(WalletFormat)}
    unknown = sorted(set(overrides) - known)
    if unknown:
        raise ValueError(
            f"{FORMAT_HOOK.__name__} returned unknown key(s) {', '.join(unknown)}; known: "
            f"{', '.join(sorted(known))}"
        )
    chosen = replace(WalletFormat(), **dict(overrides))
    if chosen.hpke_aad not in AAD_MODES:
        raise ValueError(f"{FORMAT_HOOK.__name__}: hpke_aad must be one of {', '.join(AAD_MODES)}")
    if chosen.signature_encoding not in SIGNATURE_ENCODINGS:
        raise ValueError(
            f"{FORMAT_HOOK.__name__}: signature_encoding must be one of"
            f" {', '.join(SIGNATURE_ENCODINGS)}"
        )
    return chosen
