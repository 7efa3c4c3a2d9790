"""A soft WebAuthn authenticator (§5 Authentication — embedded wallet, item 2): one ES256
credential, attestation format ``none``, and a counter that increases with every assertion.

The hostile variants come from the same authenticator through :class:`Tamper`: another
challenge, origin or RP id hash, the user-presence flag cleared, a bad signature, a counter
that does not increase, another credential id.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import struct
from dataclasses import dataclass
from typing import Any

import cbor2

from conformance.wallet.keys import WalletKey

__all__ = ["SoftAuthenticator", "Tamper", "b64url", "b64url_decode", "browser_credential"]

FLAG_UP = 0x01
FLAG_AT = 0x40
COSE_ES256 = -7
AAGUID = bytes(16)


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def b64url_decode(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


@dataclass(frozen=True, slots=True)
class Tamper:
    """What a hostile client changes in an assertion (all off: an honest one)."""

    challenge: str | None = None  # another challenge in clientDataJSON
    origin: str | None = None  # another origin in clientDataJSON
    rp_id: str | None = None  # authenticator data for another RP id
    user_present: bool = True
    bad_signature: bool = False  # a signature of other bytes
    counter: int | None = None  # this counter instead of the next one (not advancing)
    credential_id: str | None = None  # another credential id (base64url)


class SoftAuthenticator:
    """One passkey for ``rp_id`` and ``origin``, held by the suite."""

    def __init__(self, rp_id: str, origin: str) -> None:
        self.rp_id = rp_id
        self.origin = origin
        self.key = WalletKey.generate()
        self.raw_id = os.urandom(16)
        self.user_handle = os.urandom(16)
        self.counter = 0

    @property
    def credential_id(self) -> str:
        return b64url(self.raw_id)

    def is_named_by(self, value: object) -> bool:
        """Whether ``value`` is this passkey's WebAuthn credential id, encoded as base64url
        or base64, with or without padding (the interface does not say which)."""
        if not isinstance(value, str) or not value:
            return False
        unpadded = value.rstrip("=")
        for alphabet in (b"-_", b"+/"):
            try:
                decoded = base64.b64decode(
                    unpadded + "=" * (-len(unpadded) % 4), altchars=alphabet, validate=True
                )
            except ValueError:  # binascii.Error included
                continue
            if decoded == self.raw_id:
                return True
        return False

    def _client_data(self, kind: str, challenge: str, origin: str) -> bytes:
        return json.dumps(
            {"type": kind, "challenge": challenge, "origin": origin, "crossOrigin": False},
            separators=(",", ":"),
        ).encode("utf-8")

    def _cose_key(self) -> bytes:
        numbers = self.key.public.public_numbers()
        return cbor2.dumps(
            {1: 2, 3: COSE_ES256, -1: 1, -2: numbers.x.to_bytes(32, "big"),
             -3: numbers.y.to_bytes(32, "big")}
        )  # fmt: skip

    def _auth_data(self, rp_id: str, flags: int, counter: int, attested: bytes = b"") -> bytes:
        rp_hash = hashlib.sha256(rp_id.encode("utf-8")).digest()
        return rp_hash + bytes([flags]) + struct.pack(">I", counter) + attested

    def attestation(self, challenge: str) -> dict[str, str]:
        """The registration answer for ``challenge`` (base64url): credential id, client data
        and a ``none`` attestation object, all base64url. The counter starts at 1."""
        self.counter = 1
        attested = AAGUID + struct.pack(">H", len(self.raw_id)) + self.raw_id + self._cose_key()
        auth_data = self._auth_data(self.rp_id, FLAG_UP | FLAG_AT, self.counter, attested)
        obj = cbor2.dumps({"fmt": "none", "attStmt": {}, "authData": auth_data})
        client_data = self._client_data("webauthn.create", challenge, self.origin)
        return {
            "credentialId": self.credential_id,
            "clientDataJson": b64url(client_data),
            "attestationObject": b64url(obj),
        }

    def assertion(self, challenge: str, tamper: Tamper | None = None) -> dict[str, Any]:
        """An assertion answering ``challenge``; the counter advances unless ``tamper``
        pins it."""
        t = tamper or Tamper()
        if t.counter is None:
            self.counter += 1
            counter = self.counter
        else:
            counter = t.counter
        flags = FLAG_UP if t.user_present else 0
        auth_data = self._auth_data(t.rp_id or self.rp_id, flags, counter)
        client_data = self._client_data(
            "webauthn.get", t.challenge or challenge, t.origin or self.origin
        )
        signed = auth_data + hashlib.sha256(client_data).digest()
        signature = self.key.sign_raw(b"other bytes" + signed if t.bad_signature else signed)
        return {
            "credentialId": t.credential_id or self.credential_id,
            "clientDataJson": b64url(client_data),
            "authenticatorData": b64url(auth_data),
            "signature": b64url(signature),
            "userHandle": b64url(self.user_handle),
        }


def browser_credential(answer: dict[str, Any]) -> dict[str, Any]:
    """An attestation or assertion of :class:`SoftAuthenticator` as the WebAuthn credential
    JSON a browser hands a relying party (``PublicKeyCredential.toJSON()``), for verifiers
    that read that shape."""
    names = {
        "clientDataJson": "clientDataJSON",
        "attestationObject": "attestationObject",
        "authenticatorData": "authenticatorData",
        "signature": "signature",
        "userHandle": "userHandle",
    }
    return {
        "id": answer["credentialId"],
        "rawId": answer["credentialId"],
        "type": "public-key",
        "response": {names[k]: v for k, v in answer.items() if k in names},
    }
