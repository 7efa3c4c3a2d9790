"""OIDC tokens minted by the suite (§5 Authentication — embedded wallet, item 3).

The sandbox skips the provider signature (§5 item 5) but checks the claims, so the suite
signs with a key of its own (ES256) and varies the header and the claims for every
negative case. ``nonce`` binds a token to a ``clientPublicKey``: lower-case hex SHA-256 of
the exact hex string sent.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import time
from dataclasses import dataclass, field
from typing import Any

from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature

from conformance.wallet.keys import WalletKey

__all__ = ["Identity", "TokenMinter", "nonce_for"]


def _segment(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def _json_segment(value: Any) -> str:
    return _segment(json.dumps(value, separators=(",", ":")).encode("utf-8"))


def nonce_for(client_public_hex: str) -> str:
    """The ``nonce`` a token must carry to be used with ``client_public_hex`` (§5 item 3)."""
    return hashlib.sha256(client_public_hex.encode("utf-8")).hexdigest()


@dataclass(frozen=True, slots=True)
class Identity:
    """The ``iss``, ``aud`` and ``sub`` a credential stores."""

    iss: str
    aud: str
    sub: str = field(default_factory=lambda: "user-" + os.urandom(8).hex())


class TokenMinter:
    """Mints ES256 JWTs with a key of the suite's."""

    def __init__(self) -> None:
        self.key = WalletKey.generate()
        self.kid = "conformance-" + os.urandom(4).hex()

    def claims(self, identity: Identity, **changes: Any) -> dict[str, Any]:
        """Fresh claims for ``identity`` (iat now, exp in 10 minutes), with ``changes``;
        a change of ``None`` drops the claim."""
        now = int(time.time())
        claims: dict[str, Any] = {
            "iss": identity.iss, "aud": identity.aud, "sub": identity.sub,
            "iat": now, "exp": now + 600,
        }  # fmt: skip
        for name, value in changes.items():
            if value is None:
                claims.pop(name, None)
            else:
                claims[name] = value
        return claims

    def token(self, claims: dict[str, Any], *, alg: str = "ES256") -> str:
        """A compact JWT of ``claims``; ``alg`` ``none`` gives an unsigned token."""
        header = {"alg": alg, "typ": "JWT"}
        if alg != "none":
            header["kid"] = self.kid
        signing_input = f"{_json_segment(header)}.{_json_segment(claims)}"
        if alg == "none":
            return signing_input + "."
        r, s = decode_dss_signature(self.key.sign_raw(signing_input.encode("ascii")))
        return f"{signing_input}.{_segment(r.to_bytes(32, 'big') + s.to_bytes(32, 'big'))}"

    def for_identity(self, identity: Identity, **changes: Any) -> str:
        return self.token(self.claims(identity, **changes))
