"""Opening the provisioning payload of ``POST /cards/{id}/tokenize`` (§4 Cards, stablecoins,
agents, auth, sandbox: "encrypted to the wallet provider's keys"; format not shown).

The suite reads the format the reference chose (SANDBOX.md, "Cards, agents and
invitations"): a compact JWE, ``RSA-OAEP-256`` wrapping an ``A256GCM`` key, to the wallet
provider's RSA key. Everything here takes untrusted input: a malformed value is ``None``
(or a reason), never an exception.
"""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Iterator
from typing import Any

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import padding, rsa
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

from conformance.exchange.decoding import decode_json

__all__ = ["compact_jwes", "opaque_strings", "open_jwe"]

_MIN_OPAQUE = 32  # characters: shorter values are labels or ids, not a ciphertext
_OPAQUE = re.compile(r"[A-Za-z0-9+/=_.-]+")


def _b64url(text: str) -> bytes | None:
    try:
        return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
    except (binascii.Error, ValueError):
        return None


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from _strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)


def compact_jwes(body: Any) -> list[str]:
    """Every string in ``body`` shaped as a compact JWE (five base64url segments)."""
    return [
        s
        for s in _strings(body)
        if s.count(".") == 4 and all(_b64url(p) is not None for p in s.split("."))
    ]


def opaque_strings(body: Any, sent: Any = None) -> list[str]:
    """Strings shaped as a ciphertext: long runs of base64, base64url or hex characters (a
    JWE's dots allowed), not ids (``Type:<uuid>``) and not values of the request ``sent``."""
    echoed = set(_strings(sent))
    return [
        s
        for s in _strings(body)
        if len(s) >= _MIN_OPAQUE and _OPAQUE.fullmatch(s) and s not in echoed
    ]


def open_jwe(token: str, private_key_pem: str) -> tuple[bytes | None, str]:
    """The plaintext of a compact ``RSA-OAEP-256`` / ``A256GCM`` JWE, or ``None`` and why."""
    try:
        key = serialization.load_pem_private_key(private_key_pem.encode(), password=None)
    except (ValueError, TypeError) as exc:
        return None, f"the adapter's wallet provider key does not load: {exc}"
    if not isinstance(key, rsa.RSAPrivateKey):
        return None, "the adapter's wallet provider key is not an RSA key"
    parts = token.split(".")
    if len(parts) != 5:
        return None, "not a compact JWE (five segments)"
    decoded = [_b64url(p) for p in parts]
    if any(d is None for d in decoded):
        return None, "a JWE segment is not base64url"
    header_bytes, wrapped, iv, ciphertext, tag = (d or b"" for d in decoded)
    try:
        header = decode_json(header_bytes)
    except ValueError:  # DecodeProblem included: bounded depth, size and UTF-8
        return None, "the JWE header is not JSON"
    if not isinstance(header, dict) or (header.get("alg"), header.get("enc")) != (
        "RSA-OAEP-256",
        "A256GCM",
    ):
        return None, f"JWE header is not RSA-OAEP-256 / A256GCM: {header!r}"[:200]
    oaep = padding.OAEP(mgf=padding.MGF1(hashes.SHA256()), algorithm=hashes.SHA256(), label=None)
    try:
        cek = key.decrypt(wrapped, oaep)
        plain = AESGCM(cek).decrypt(iv, ciphertext + tag, parts[0].encode("ascii"))
    except (ValueError, InvalidTag):
        return None, "the JWE does not open with the wallet provider key"
    return plain, "opened"
