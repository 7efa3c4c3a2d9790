"""HTTP Basic authentication of platforms (§5 Authentication).

``Authorization: Basic base64(<token id>:<secret>)``. A sandbox accepts only sandbox
credentials; every failure is 401 ``UNAUTHORIZED`` with a ``reason`` naming the check.
"""

from __future__ import annotations

import base64
import binascii
import hmac

from reference.kernel.errors import Unauthorized
from reference.kernel.platforms import (
    PRODUCTION,
    Platform,
    hash_secret,
)
from reference.kernel.seams import seam
from reference.kernel.services import Services

PLATFORM_SCOPE_KEY = "reference.platform"

REASON_MISSING = "missing Authorization header"
REASON_NOT_BASIC = "Authorization header must use the Basic scheme"
REASON_NOT_ASCII = "Basic credentials must be ASCII base64"
REASON_BAD_BASE64 = "Basic credentials are not valid base64"
REASON_NO_COLON = "Basic credentials must be '<token id>:<secret>'"
REASON_UNKNOWN_TOKEN = "unknown API token id"
REASON_WRONG_SECRET = "wrong secret for this API token id"
REASON_PRODUCTION = (
    "production credentials are bound to the production environment; this is the sandbox"
)


def parse_basic(header: str) -> tuple[str, str]:
    """The token id and secret of a Basic ``Authorization`` value, or ``Unauthorized``."""
    scheme, _, token = header.strip().partition(" ")
    if scheme.lower() != "basic" or not token.strip():
        raise Unauthorized(REASON_NOT_BASIC)
    if not token.isascii():  # the header's bytes arrive as latin-1: b64decode raises on them
        raise Unauthorized(REASON_NOT_ASCII)
    try:
        decoded = base64.b64decode(token.strip(), validate=True).decode("utf-8")
    except (binascii.Error, UnicodeDecodeError) as exc:
        raise Unauthorized(REASON_BAD_BASE64) from exc
    token_id, colon, secret = decoded.partition(":")
    if not colon:
        raise Unauthorized(REASON_NO_COLON)
    return token_id, secret


ANONYMOUS_PLATFORM = seam(
    "auth.anonymous_platform",
    "the platform a request without Authorization acts for: None, so it is refused"
    " (context: services, path)",
)
SECRET_MATCHES = seam("auth.secret_matches", "whether the secret matches the token id's")
ENVIRONMENT_MATCHES = seam(
    "auth.environment_matches", "whether the credential belongs to the sandbox environment"
)


def authenticate(services: Services, header: str | None) -> Platform:
    """The platform the request acts for, or ``Unauthorized`` naming the failed check.

    The checks run in the order a person would debug them.
    """
    settings = services.settings
    if header is None:
        raise Unauthorized(REASON_MISSING)
    token_id, secret = parse_basic(header)
    stored = services.api_tokens.get(token_id)
    if stored is None:
        raise Unauthorized(REASON_UNKNOWN_TOKEN)
    secret_matches = hmac.compare_digest(hash_secret(secret), stored.secret_sha256)
    if not settings.seams.apply(SECRET_MATCHES, secret_matches):
        raise Unauthorized(REASON_WRONG_SECRET)
    if not settings.seams.apply(ENVIRONMENT_MATCHES, stored.environment != PRODUCTION):
        raise Unauthorized(REASON_PRODUCTION)
    return stored.platform


def anonymous_platform(services: Services, path: str) -> Platform | None:
    """The platform a request without credentials acts for: none, it is refused."""
    return services.settings.seams.apply(ANONYMOUS_PLATFORM, None, services=services, path=path)
