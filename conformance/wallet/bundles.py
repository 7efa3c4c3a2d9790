"""Bundles between the wallet client and the service (§5 Authentication — embedded wallet).

From the service: enclave-signed JSON ``{version, data, dataSignature, enclaveQuorumPublic}``
whose ``data`` is hex of UTF-8 JSON, signed (DER ECDSA P-256) by the enclave key the profile
names. The OTP target bundle carries ``targetPublic``; the session-key and export bundles
carry an HPKE-sealed payload. To the service: the OTP bundle ``{encappedPublic, ciphertext}``
sealed to ``targetPublic``.

Every reader raises :class:`BundleProblem` saying what is wrong, never a raw exception, so
a malformed answer becomes a clause failure.
"""

from __future__ import annotations

import json
from typing import Any

from cryptography.hazmat.primitives.asymmetric import ec

from conformance.exchange.decoding import decode_json
from conformance.ground.public_keys import public_key_from_hex
from conformance.wallet.format import WalletFormat
from conformance.wallet.hpke import HpkeError, open_sealed, seal
from conformance.wallet.keys import WalletKey, public_point, verify_der_hex

__all__ = [
    "BundleProblem",
    "open_sealed_bundle",
    "otp_bundle",
    "read_signed_bundle",
    "sealed_json",
    "target_public_key",
]


class BundleProblem(ValueError):
    """A bundle from the service that cannot be read, checked or opened."""


def _hex(value: object, what: str) -> bytes:
    if not isinstance(value, str):
        raise BundleProblem(f"{what} is not a hex string ({type(value).__name__})")
    try:
        return bytes.fromhex(value)
    except ValueError:
        raise BundleProblem(f"{what} is not hex") from None


def _json_object(raw: object, what: str) -> dict[str, Any]:
    if isinstance(raw, dict):
        return raw
    if isinstance(raw, bytes):
        try:
            raw = raw.decode("utf-8")
        except UnicodeDecodeError:
            raise BundleProblem(f"{what} is not UTF-8") from None
    if not isinstance(raw, str):
        raise BundleProblem(f"{what} is neither a JSON string nor an object")
    try:
        value = decode_json(raw)
    except ValueError:  # DecodeProblem included: bounded depth and size
        raise BundleProblem(f"{what} is not JSON") from None
    if not isinstance(value, dict):
        raise BundleProblem(f"{what} is not a JSON object")
    return value


def read_signed_bundle(
    bundle: object, enclave_key: ec.EllipticCurvePublicKey | None, fmt: WalletFormat
) -> dict[str, Any]:
    """The ``data`` object of an enclave-signed bundle, its signature checked against
    ``enclave_key`` (skipped when None). Without enclave signing (format override) the
    bundle itself is the data."""
    outer = _json_object(bundle, "the bundle")
    if not fmt.enclave_signed_bundles:
        return outer
    data = _hex(outer.get("data"), "the bundle's data")
    if enclave_key is not None:
        signature = outer.get("dataSignature")
        if not verify_der_hex(enclave_key, signature, data):
            raise BundleProblem(
                "the bundle's dataSignature is not a valid signature of its data by the "
                "enclave key the profile names"
            )
    return _json_object(data, "the bundle's data")


def target_public_key(data: dict[str, Any]) -> ec.EllipticCurvePublicKey:
    """The HPKE target key of an OTP target bundle's data (``targetPublic``)."""
    key = public_key_from_hex(data.get("targetPublic"))
    if key is None:
        raise BundleProblem("targetPublic is not a hex-encoded P-256 point")
    return key


def open_sealed_bundle(data: dict[str, Any], receiver: WalletKey, fmt: WalletFormat) -> bytes:
    """Open the HPKE payload of a session-key or export bundle's data with ``receiver``."""
    enc = _hex(data.get(fmt.sealed_enc_field), fmt.sealed_enc_field)
    ciphertext = _hex(data.get(fmt.sealed_ciphertext_field), fmt.sealed_ciphertext_field)
    try:
        return open_sealed(receiver, enc, ciphertext, fmt.hpke)
    except HpkeError as exc:
        raise BundleProblem(
            f"the sealed payload does not open with the client key ({exc})"
        ) from None


def sealed_json(
    receiver: ec.EllipticCurvePublicKey, payload: dict[str, Any], fmt: WalletFormat
) -> str:
    """``payload`` as JSON, HPKE-sealed to ``receiver``: the ``{enc, ciphertext}`` string."""
    enc, ciphertext = seal(public_point(receiver), json.dumps(payload).encode("utf-8"), fmt.hpke)
    return json.dumps(
        {fmt.sealed_enc_field: enc.hex(), fmt.sealed_ciphertext_field: ciphertext.hex()}
    )


def otp_bundle(
    target: ec.EllipticCurvePublicKey, code: str, tek_public_hex: str, fmt: WalletFormat
) -> str:
    """The ``encryptedOtpBundle`` (§5 item 1): ``{otp_code, public_key}`` sealed to the
    target key of the challenge."""
    return sealed_json(target, {"otp_code": code, "public_key": tek_public_hex}, fmt)
