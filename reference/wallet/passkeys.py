"""Passkeys (§5 item 2): WebAuthn registration and assertion, verified with ``webauthn``
(py_webauthn 3.x) against the sandbox's RP id and origin (SANDBOX.md, "Credentials, sessions
and who owns them").

py_webauthn accepts a counter stuck at 0 and names its failures in prose, so the checks
whose refusal the interface wants named (challenge, origin, RP id, user presence, counter)
run here first, each with its own ``reason``; the library then verifies everything again,
the signature included. User presence is required, user verification is not.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import re
from dataclasses import dataclass
from types import ModuleType
from typing import Any

from reference.kernel.errors import Unauthorized
from reference.kernel.request_body import strict_loads
from reference.kernel.seams import seam
from reference.kernel.settings import ServerSettings
from reference.kernel.validation import Problems


def _webauthn() -> ModuleType:
    """py_webauthn, imported at its first use: with the ASN.1 modules it pulls in it was 75 ms
    of every start of the sandbox, and most runs of it never see a passkey."""
    import webauthn

    return webauthn


RP_ID = "wallet.sandbox.gpsi.test"
ORIGIN = "https://wallet.sandbox.gpsi.test"
LEGACY_SIGNATURE = "sandbox-valid-passkey-signature"  # §5 item 5: still accepted
_B64URL = re.compile(r"[A-Za-z0-9_-]+={0,2}")
_UP = 0x01
_AUTH_DATA_MIN = 37  # rpIdHash (32) + flags (1) + signCount (4)

LEGACY_LITERAL_ACCEPTED = seam(
    "wallet.passkey_literal_accepted",
    "whether the legacy literal assertion signature sandbox-valid-passkey-signature is accepted",
)
EXPECTED_CHALLENGE = seam(
    "wallet.passkey_expected_challenge",
    "the challenge (base64url) an assertion must answer: the one issued"
    " (context: client_data, the assertion's parsed clientDataJSON)",
)
EXPECTED_ORIGIN = seam(
    "wallet.passkey_expected_origin",
    "the origin an assertion must come from: the sandbox's (context: client_data)",
)
COUNTER_FLOOR = seam(
    "wallet.passkey_counter_floor",
    "the sign count an assertion's counter must exceed: the stored one"
    " (context: count, the assertion's counter)",
)
ABSENT_USER_REFUSAL = seam(
    "wallet.passkey_absent_user_refusal",
    "the error raised for an assertion without the user-present flag: a 401; None accepts"
    " it with its counter (context: stored, authenticator_data, client_data, signature)",
)


def b64url_decode(text: str) -> bytes | None:
    """Strict base64url (padding optional), or None."""
    if not _B64URL.fullmatch(text) or len(text.rstrip("=")) % 4 == 1:
        return None
    body = text.rstrip("=")
    try:
        return base64.urlsafe_b64decode(body + "=" * (-len(body) % 4))
    except (binascii.Error, ValueError):
        return None


def b64url(raw: bytes) -> str:
    """Base64url without padding."""
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()


def read_b64url(problems: Problems, obj: dict[str, Any], key: str, path: str) -> bytes | None:
    """``obj[key]`` as base64url bytes, recording the field's problem."""
    field = f"{path}.{key}" if path else key
    value = problems.required(obj, key, path)
    if value is None or problems.string(field, value) is None:
        return None
    raw = b64url_decode(value)
    if raw is None or not raw:
        problems.add(field, "BASE64URL", "must be non-empty base64url")
    return raw


def _client_data(raw: bytes, expected_type: str) -> dict[str, Any]:
    try:
        data = strict_loads(raw)
    except (ValueError, RecursionError) as exc:
        raise Unauthorized("client data is not JSON") from exc
    if not isinstance(data, dict) or data.get("type") != expected_type:
        raise Unauthorized(f"client data type is not {expected_type}")
    return data


@dataclass(frozen=True, slots=True)
class Registered:
    """What a verified registration stores."""

    credential_id: str
    public_key_hex: str
    sign_count: int


def register(
    challenge: bytes, credential_id: bytes, client_data: bytes, attestation: bytes
) -> Registered:
    """Verify a registration (attestation ``none`` or any format py_webauthn knows)."""
    data = _client_data(client_data, "webauthn.create")
    if data.get("challenge") != b64url(challenge):
        raise Unauthorized("challenge mismatch")
    if data.get("origin") != ORIGIN:
        raise Unauthorized("origin mismatch")
    credential = {
        "id": b64url(credential_id),
        "rawId": b64url(credential_id),
        "type": "public-key",
        "response": {
            "clientDataJSON": b64url(client_data),
            "attestationObject": b64url(attestation),
        },
    }
    try:
        verified = _webauthn().verify_registration_response(
            credential=credential,
            expected_challenge=challenge,
            expected_rp_id=RP_ID,
            expected_origin=ORIGIN,
            require_user_presence=True,
        )
    except Exception as exc:  # the library's errors, and whatever hostile CBOR provokes
        raise Unauthorized(_reason(str(exc), "attestation invalid")) from exc
    return Registered(
        b64url(verified.credential_id), verified.credential_public_key.hex(), verified.sign_count
    )


def _reason(message: str, default: str) -> str:
    lowered = message.lower()
    if "rp id hash" in lowered:
        return "rp id mismatch"
    if "not present" in lowered:
        return "user not present"
    if "signature" in lowered:
        return "bad signature"
    return f"{default}: {message}"[:200]


@dataclass(frozen=True, slots=True)
class Assertion:
    """A browser assertion as sent (``signature`` may be the legacy literal)."""

    credential_id: str
    client_data: bytes
    authenticator_data: bytes
    signature: bytes | str


def verify_assertion(
    settings: ServerSettings, assertion: Assertion, challenge: str, stored: dict[str, Any]
) -> int:
    """Verify an assertion for the stored passkey; return the new sign count."""
    seams = settings.seams
    if assertion.credential_id.rstrip("=") != stored["credentialId"]:
        raise Unauthorized("unknown credential")
    if assertion.signature == LEGACY_SIGNATURE:
        if not seams.apply(LEGACY_LITERAL_ACCEPTED, True):
            raise Unauthorized("bad signature")
        return int(stored["signCount"])
    data = _client_data(assertion.client_data, "webauthn.get")
    expected_challenge = seams.apply(EXPECTED_CHALLENGE, challenge, client_data=data)
    if data.get("challenge") != expected_challenge:
        raise Unauthorized("challenge mismatch")
    expected_origin = seams.apply(EXPECTED_ORIGIN, ORIGIN, client_data=data)
    if data.get("origin") != expected_origin:
        raise Unauthorized("origin mismatch")
    auth = assertion.authenticator_data
    if len(auth) < _AUTH_DATA_MIN:
        raise Unauthorized("authenticator data too short")
    if auth[:32] != hashlib.sha256(RP_ID.encode()).digest():
        raise Unauthorized("rp id mismatch")
    count = int.from_bytes(auth[33:37], "big")
    current = seams.apply(COUNTER_FLOOR, int(stored["signCount"]), count=count)
    if count <= current:  # also a counter stuck at 0: the sandbox wants one that counts
        raise Unauthorized("counter did not increase")
    signature = assertion.signature
    assert isinstance(signature, bytes)
    if not auth[32] & _UP:
        refusal: Unauthorized | None = seams.apply(
            ABSENT_USER_REFUSAL,
            Unauthorized("user not present"),
            stored=stored,
            authenticator_data=auth,
            client_data=assertion.client_data,
            signature=signature,
        )
        if refusal is not None:
            raise refusal
        return count
    credential = {
        "id": stored["credentialId"],
        "rawId": stored["credentialId"],
        "type": "public-key",
        "response": {
            "clientDataJSON": b64url(assertion.client_data),
            "authenticatorData": b64url(auth),
            "signature": b64url(signature),
        },
    }
    try:
        _webauthn().verify_authentication_response(
            credential=credential,
            expected_challenge=b64url_decode(expected_challenge) or b"",
            expected_rp_id=RP_ID,
            expected_origin=expected_origin,
            credential_public_key=bytes.fromhex(stored["publicKey"]),
            credential_current_sign_count=current,
        )
    except Exception as exc:  # the library's errors, and whatever hostile input provokes
        raise Unauthorized(_reason(str(exc), "assertion invalid")) from exc
    return count
