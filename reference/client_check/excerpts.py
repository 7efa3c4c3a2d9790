"""What a finding shows of its request: the headers that matter to the rules and the start
of the body, with every secret taken out (credentials, tokens, codes, keys): a finding is
read by people who must never see them."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any

REDACTED = "<redacted>"
MAX_BODY_CHARS = 2000
MAX_HEADER_CHARS = 300
# the headers a client rule reads; others are left out of the excerpt
SHOWN_HEADERS = (
    "authorization",
    "content-type",
    "content-length",
    "idempotency-key",
    "request-id",
    "service-wallet-signature",
)
# body members whose value is a credential or opens one, at any depth: by a word in the
# name (oidcToken, clientSecret), or by the name itself (an OTP or SCA code)
_SECRET_WORDS = ("secret", "password", "token", "privatekey")
_SECRET_NAMES = frozenset({"code", "otpcode", "otp"})


def headers_excerpt(headers: Mapping[str, str]) -> dict[str, str]:
    """The shown headers; ``Authorization`` keeps only its scheme."""
    shown: dict[str, str] = {}
    for name in SHOWN_HEADERS:
        value = headers.get(name)
        if value is None:
            continue
        if name == "authorization":
            scheme = value.strip().partition(" ")[0]
            value = f"{scheme} {REDACTED}" if scheme else REDACTED
        shown[name] = _cut(value, MAX_HEADER_CHARS)
    return shown


def _is_secret(key: str) -> bool:
    folded = key.lower().replace("-", "").replace("_", "")
    return folded in _SECRET_NAMES or any(word in folded for word in _SECRET_WORDS)


def _redact(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: REDACTED if _is_secret(str(k)) else _redact(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_redact(item) for item in value]
    return value


def body_excerpt(raw: bytes, content_type: str) -> str:
    """The body as shown: JSON with its secrets redacted, a form or binary body by size."""
    if not raw:
        return ""
    if content_type.lower().startswith("multipart/"):
        return f"<multipart body, {len(raw)} bytes>"
    try:
        parsed = json.loads(raw)
    except (ValueError, RecursionError):
        return f"<{len(raw)} bytes, not JSON>"
    return _cut(json.dumps(_redact(parsed), ensure_ascii=False), MAX_BODY_CHARS)


def without(secrets: Iterable[str], shown: dict[str, Any]) -> dict[str, Any]:
    """``shown`` with every known secret taken out wherever it sits (a client that put its
    platform secret in a body member of any name)."""
    text = json.dumps(shown, ensure_ascii=False)
    for secret in secrets:
        if secret:
            text = text.replace(json.dumps(secret, ensure_ascii=False)[1:-1], REDACTED)
    scrubbed: dict[str, Any] = json.loads(text)
    return scrubbed


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[:limit] + f"... ({len(text)} chars)"
