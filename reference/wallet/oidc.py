"""OIDC tokens of ``OAUTH`` credentials (§5 item 3, item 5; SANDBOX.md, "Credentials,
sessions and who owns them").

The sandbox skips the provider's signature (§5 item 5) but parses the token strictly and
checks its claims: a token that is not three strict base64url segments of JSON is malformed
(``400 INVALID_INPUT`` on ``oidcToken``); every failed check is a 401 whose ``reason``
names it.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import math
import re
import time
from dataclasses import dataclass
from typing import Any

from reference.kernel.errors import FieldError, InvalidInput, Unauthorized
from reference.kernel.request_body import strict_loads
from reference.kernel.seams import seam
from reference.kernel.settings import ServerSettings

ISSUERS = (
    "https://accounts.google.com",
    "https://appleid.apple.com",
    "https://oidc.sandbox.gpsi.test",
)
MAX_AGE_S = 60
SKEW_S = 5
MAX_TOKEN_LENGTH = 16_384
# The shape of a token: the oidcToken pattern of the served document (requests/
# credential-create.json), so the refusals as input (400) are the ones it declares.
SHAPE = re.compile(r"[A-Za-z0-9_-]+[.][A-Za-z0-9_-]+[.][A-Za-z0-9_-]*")

TOKEN_SIGNED = seam("wallet.oidc_token_signed", "whether an OIDC token's alg is a signing one")
IAT_PROBLEM = seam(
    "wallet.oidc_iat_problem",
    "why an OIDC token's iat is refused (missing, too old, in the future), or None when it"
    " is fresh (context: iat, now)",
)
IDENTITY_MATCHES = seam(
    "wallet.oidc_identity_matches",
    "whether a verify token's iss, aud and sub match the OAUTH credential's",
)
NONCE_BINDS = seam(
    "wallet.oidc_nonce_binds",
    "whether a verify token's nonce is the SHA-256 of its clientPublicKey",
)


@dataclass(frozen=True, slots=True)
class Identity:
    """What an ``OAUTH`` credential stores and a fresh token must match."""

    iss: str
    aud: str
    sub: str

    def as_json(self) -> dict[str, str]:
        """The credential's ``oauth`` object."""
        return {"iss": self.iss, "aud": self.aud, "sub": self.sub}


def _malformed(message: str) -> InvalidInput:
    return InvalidInput([FieldError("oidcToken", "JWT", message)])


def _segment(text: str) -> Any:
    """One base64url segment decoded as JSON; base64.b64decode without validate=True would
    silently drop the ``-`` and ``_`` of base64url, hence the translation and validation.

    The token's shape (three segments of the base64url alphabet) is judged before, as input
    (400, the pattern the served document declares); what the segments decode to is the
    token's content, which fails authentication (401, §5 item 6: a malformed token *may*
    be 400): no document can declare that a string is base64url of a JSON object."""
    if len(text) % 4 == 1:
        raise Unauthorized("token segments are not base64url")
    padded = text.replace("-", "+").replace("_", "/") + "=" * (-len(text) % 4)
    try:
        raw = base64.b64decode(padded, validate=True)
        return strict_loads(raw)
    except (binascii.Error, ValueError, RecursionError) as exc:
        raise Unauthorized("token segments are not base64url of JSON") from exc


def parse(token: Any) -> tuple[dict[str, Any], dict[str, Any]]:
    """The token's header and claims, or 400 ``INVALID_INPUT`` on ``oidcToken``."""
    if not isinstance(token, str) or not token:
        raise InvalidInput([FieldError("oidcToken", "TYPE_STRING", "must be a JWT string")])
    if len(token) > MAX_TOKEN_LENGTH:
        raise _malformed(f"must be at most {MAX_TOKEN_LENGTH} characters")
    if not SHAPE.fullmatch(token):
        raise _malformed("must be three base64url segments separated by dots")
    parts = token.split(".")
    if len(parts[2]) % 4 == 1:
        raise Unauthorized("the signature segment is not base64url")
    header, claims = _segment(parts[0]), _segment(parts[1])
    if not isinstance(header, dict) or not isinstance(claims, dict):
        raise Unauthorized("token header and claims are not JSON objects")
    return header, claims


def _number(value: Any) -> float | None:
    # bool is an int in Python; a JSON true is not a number
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    try:  # a huge JSON integer does not fit a float: not a usable time
        number = float(value)
    except OverflowError:
        return None
    return number if math.isfinite(number) else None


def _audience(value: Any) -> str | None:
    if isinstance(value, list):
        value = value[0] if len(value) == 1 else None
    return value if isinstance(value, str) and value else None


def _iat_problem(iat: float | None, now: float) -> str | None:
    """Why ``iat`` is not fresh at ``now`` (60 s, 5 s skew either way), or None."""
    if iat is None:
        return "iat missing or not a number"
    if iat < now - MAX_AGE_S - SKEW_S:
        return "token too old"
    if iat > now + SKEW_S:
        return "token issued in the future"
    return None


def check(settings: ServerSettings, token: Any) -> tuple[Identity, dict[str, Any]]:
    """Parse and check a token at ``now``: alg, issuer, audience, subject, freshness.

    Returns the identity and the claims (verify reads ``nonce`` from them)."""
    header, claims = parse(token)
    alg = header.get("alg")
    seams = settings.seams
    if not isinstance(alg, str) or not seams.apply(TOKEN_SIGNED, alg.lower() != "none"):
        raise Unauthorized("unsigned token")
    iss = claims.get("iss")
    if not isinstance(iss, str) or iss not in ISSUERS:
        raise Unauthorized("issuer not supported")
    aud = _audience(claims.get("aud"))
    if aud is None:
        raise Unauthorized("audience: must be a non-empty string or a one-element array")
    sub = claims.get("sub")
    if not isinstance(sub, str) or not sub:
        raise Unauthorized("subject missing")
    now = time.time()
    iat = _number(claims.get("iat"))
    problem = seams.apply(IAT_PROBLEM, _iat_problem(iat, now), iat=iat, now=now)
    if problem is not None:
        raise Unauthorized(problem)
    exp = _number(claims.get("exp"))
    if exp is None:
        raise Unauthorized("exp missing or not a number")
    if exp <= now:
        raise Unauthorized("token expired")
    return Identity(iss, aud, sub), claims


def nonce_for(client_public_key: str) -> str:
    """The nonce a verify token must carry: lower-case hex SHA-256 of the exact key string."""
    return hashlib.sha256(client_public_key.encode()).hexdigest()


def check_binding(
    settings: ServerSettings,
    stored: dict[str, Any],
    identity: Identity,
    claims: dict[str, Any],
    client_public_key: str,
) -> None:
    """On verify: the stored identity matches and ``nonce`` binds ``clientPublicKey``."""
    same = (stored.get("iss"), stored.get("aud"), stored.get("sub")) == (
        identity.iss,
        identity.aud,
        identity.sub,
    )
    if not settings.seams.apply(IDENTITY_MATCHES, same):
        raise Unauthorized("identity mismatch")
    binds = claims.get("nonce") == nonce_for(client_public_key)
    if not settings.seams.apply(NONCE_BINDS, binds):
        raise Unauthorized("nonce mismatch")
