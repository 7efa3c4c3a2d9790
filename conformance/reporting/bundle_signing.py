"""Signed bundles: a zip whose manifest (SHA-256 of every file) is signed by the certifier.

The archive is canonical: entries stored uncompressed, in a fixed order, with fixed
timestamps and attributes. Verification checks the signature over ``manifest.json`` with
the certifier's public key, the hash of every file, that the set of files is exactly the
manifest's, and, last, that re-writing the archive from its entries gives the very same
bytes; so any changed, added or removed byte anywhere in the file fails it.

Keys: Ed25519 or ECDSA P-256 (SHA-256), PEM. Works offline (``cryptography`` only).
"""

from __future__ import annotations

import base64
import hashlib
import io
import json
import zipfile
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, ed25519

__all__ = [
    "MANIFEST",
    "SIGNATURE",
    "SIGNER",
    "BundleError",
    "Verified",
    "fingerprint",
    "load_private_key",
    "load_public_key",
    "sign_bundle",
    "verify_bundle",
]

MANIFEST, SIGNATURE, SIGNER = "manifest.json", "manifest.sig", "signer-public-key.pem"
_FIXED_TIME = (1980, 1, 1, 0, 0, 0)
PrivateKey = ed25519.Ed25519PrivateKey | ec.EllipticCurvePrivateKey
PublicKey = ed25519.Ed25519PublicKey | ec.EllipticCurvePublicKey


class BundleError(Exception):
    """The bundle does not verify (or a key cannot be used); the message says why."""


@dataclass(frozen=True, slots=True)
class Verified:
    manifest: dict[str, Any]
    files: dict[str, bytes]


def _check_key(key: object, kind: str) -> None:
    if isinstance(key, ed25519.Ed25519PrivateKey | ed25519.Ed25519PublicKey):
        return
    if isinstance(key, ec.EllipticCurvePrivateKey | ec.EllipticCurvePublicKey) and isinstance(
        key.curve, ec.SECP256R1
    ):
        return
    raise BundleError(f"the {kind} key must be Ed25519 or ECDSA P-256, not {type(key).__name__}")


def load_private_key(pem: bytes) -> PrivateKey:
    try:
        key = serialization.load_pem_private_key(pem, password=None)
    except (ValueError, TypeError) as exc:
        raise BundleError(f"not an unencrypted PEM private key ({exc})") from exc
    _check_key(key, "signing")
    return key  # type: ignore[return-value]


def load_public_key(pem: bytes) -> PublicKey:
    try:
        key = serialization.load_pem_public_key(pem)
    except (ValueError, TypeError) as exc:
        raise BundleError(f"not a PEM public key ({exc})") from exc
    _check_key(key, "public")
    return key  # type: ignore[return-value]


def _public_pem(key: PublicKey) -> bytes:
    return key.public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
    )


def fingerprint(key: PublicKey) -> str:
    der = key.public_bytes(
        serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo
    )
    return "sha256:" + hashlib.sha256(der).hexdigest()


def _sign(key: PrivateKey, data: bytes) -> bytes:
    if isinstance(key, ed25519.Ed25519PrivateKey):
        return key.sign(data)
    return key.sign(data, ec.ECDSA(hashes.SHA256()))


def _verify(key: PublicKey, signature: bytes, data: bytes) -> None:
    if isinstance(key, ed25519.Ed25519PublicKey):
        key.verify(signature, data)
    else:
        key.verify(signature, data, ec.ECDSA(hashes.SHA256()))


def _canonical_zip(entries: list[tuple[str, bytes]]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_STORED) as archive:
        for name, data in entries:
            info = zipfile.ZipInfo(name, date_time=_FIXED_TIME)
            info.compress_type = zipfile.ZIP_STORED
            info.create_system = 3
            info.external_attr = 0o644 << 16
            archive.writestr(info, data)
    return buffer.getvalue()


def _order(files: Mapping[str, bytes]) -> list[str]:
    head = [MANIFEST, SIGNATURE, SIGNER]
    return head + sorted(n for n in files if n not in head)


def sign_bundle(
    files: Mapping[str, bytes], key: PrivateKey, meta: Mapping[str, Any] | None = None
) -> bytes:
    """The signed archive of ``files`` (names are POSIX paths inside the bundle)."""
    for name in files:
        if name in (MANIFEST, SIGNATURE, SIGNER) or name.startswith("/") or ".." in name:
            raise BundleError(f"reserved or unsafe file name in the bundle: {name!r}")
    public = key.public_key()
    manifest = {
        **(meta or {}),
        "algorithm": "Ed25519" if isinstance(key, ed25519.Ed25519PrivateKey) else "ES256",
        "signer": fingerprint(public),
        "files": {name: hashlib.sha256(files[name]).hexdigest() for name in sorted(files)},
    }
    manifest_bytes = (json.dumps(manifest, indent=2, sort_keys=True) + "\n").encode()
    signature = base64.b64encode(_sign(key, manifest_bytes)) + b"\n"
    everything = {
        **files,
        MANIFEST: manifest_bytes,
        SIGNATURE: signature,
        SIGNER: _public_pem(public),
    }
    return _canonical_zip([(name, everything[name]) for name in _order(everything)])


def verify_bundle(data: bytes, public_key: PublicKey) -> Verified:
    """Check the bundle against the certifier's key; raise :class:`BundleError` naming why."""
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            names = archive.namelist()
            if len(names) != len(set(names)):
                raise BundleError("the archive repeats a file name")
            entries = {name: archive.read(name) for name in names}
    except BundleError:
        raise
    except Exception as exc:  # zlib errors, CRC mismatches, truncated members
        raise BundleError(f"not a readable bundle archive ({exc})") from exc
    for needed in (MANIFEST, SIGNATURE):
        if needed not in entries:
            raise BundleError(f"the bundle has no {needed}")
    try:
        signature = base64.b64decode(entries[SIGNATURE].strip(), validate=True)
        _verify(public_key, signature, entries[MANIFEST])
    except (InvalidSignature, ValueError) as exc:
        raise BundleError(
            "the manifest's signature does not verify with the given public key "
            "(the manifest was changed, or another key signed it)"
        ) from exc
    try:
        manifest = json.loads(entries[MANIFEST])
        listed: dict[str, str] = dict(manifest["files"])
    except (ValueError, KeyError, TypeError) as exc:
        raise BundleError(f"the manifest is not readable ({exc})") from exc
    present = set(entries) - {MANIFEST, SIGNATURE, SIGNER}
    added, removed = sorted(present - set(listed)), sorted(set(listed) - present)
    if added or removed:
        raise BundleError(f"files added {added or 'none'}, removed {removed or 'none'}")
    for name, digest in listed.items():
        if hashlib.sha256(entries[name]).hexdigest() != digest:
            raise BundleError(f"{name} was changed (its SHA-256 differs from the manifest)")
    if _canonical_zip([(name, entries[name]) for name in _order(entries)]) != data:
        raise BundleError("the archive's bytes differ from the signed bundle's canonical form")
    return Verified(manifest=manifest, files={n: entries[n] for n in sorted(present)})
