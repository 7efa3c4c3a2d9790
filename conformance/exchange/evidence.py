"""Evidence of each exchange with the target: redacted, readable, reproducible with curl.

Nothing secret leaves this module: the Authorization header is replaced, secret-looking
JSON keys are masked, and every secret value the profile holds is scrubbed from any text.
"""

from __future__ import annotations

import json
import shlex
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from conformance.exchange.decoding import (
    DecodeProblem,
    DuplicateMember,
    decode_json,
    member_pairs,
)
from conformance.reporting.redaction import REDACTED, scrub
from conformance.reporting.secrets import register_one_time_code, register_secret

__all__ = ["REDACTED", "Exchange", "Redactor", "build_curl", "learn_authorization", "learn_secrets"]

BODY_LIMIT = 4000

# Keys whose values are secrets wherever they appear.
_SECRET_KEYS = frozenset(
    k.lower()
    for k in (
        "secret",
        "clientSecret",
        "client_secret",
        "password",
        "otp",
        "otpCode",
        "otp_code",
        "privateKey",
        "private_key",
        "sessionSigningKey",
        "encryptedSessionSigningKey",
        "encryptedOtpBundle",
        "accessToken",
        "access_token",
        "refreshToken",
        "oidcToken",
        "token",
        "apiSecret",
        "second_client_secret",
        "production_client_secret",
    )
)
# In requests `code` carries one-time codes; in responses it is an error or currency code.
_SECRET_REQUEST_KEYS = _SECRET_KEYS | {"code"}
_ONE_TIME_KEYS = frozenset(("code", "otp", "otpcode", "otp_code"))
_SECRET_HEADERS = frozenset(
    ("authorization", "proxy-authorization", "cookie", "set-cookie", "service-wallet-signature")
)


@dataclass(frozen=True, slots=True)
class Redactor:
    """Masks secrets in headers, JSON bodies and free text."""

    secrets: tuple[str, ...] = ()

    def text(self, value: str) -> str:
        """``value`` with every form of every secret scrubbed (``reporting.redaction``)."""
        return scrub(value, self.secrets)

    def headers(self, headers: Iterable[tuple[str, str]]) -> dict[str, str]:
        redacted: dict[str, str] = {}
        for name, value in headers:
            if name.lower() in ("authorization", "proxy-authorization"):
                learn_authorization(value)
            if name.lower() in _SECRET_HEADERS:
                scheme = value.split(" ", 1)[0] if " " in value else ""
                redacted[name] = f"{scheme} {REDACTED}".strip()
            else:
                redacted[name] = self.text(value)
        return redacted

    def body(self, raw: bytes | None, *, request: bool) -> str:
        if not raw:
            return ""
        try:
            data = decode_json(raw)
        except DuplicateMember:
            # shown as received (the repeat is the evidence), once every value under a
            # secret key, the repeated ones included, is known to the scrubber
            _learn_members(member_pairs(raw), request=request)
            text = raw[:BODY_LIMIT].decode("utf-8", errors="replace")
            suffix = "" if len(raw) <= BODY_LIMIT else f"... ({len(raw)} bytes)"
            return self.text(text) + suffix
        except DecodeProblem:
            text = raw[:BODY_LIMIT].decode("utf-8", errors="replace")
            suffix = "" if len(raw) <= BODY_LIMIT else f"... ({len(raw)} bytes)"
            return self.text(text) + suffix
        learn_secrets(data, request=request)
        keys = _SECRET_REQUEST_KEYS if request else _SECRET_KEYS
        text = json.dumps(_mask(data, keys), indent=2, ensure_ascii=False)
        if len(text) > BODY_LIMIT:
            text = text[:BODY_LIMIT] + f"... ({len(text)} characters)"
        return self.text(text)


def learn_secrets(value: Any, *, request: bool) -> None:
    """Register, for redaction everywhere, the values a body holds under secret keys
    (access tokens, private and session keys, OTP codes)."""
    keys = _SECRET_REQUEST_KEYS if request else _SECRET_KEYS
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            for key, inner in item.items():
                if isinstance(inner, str) and isinstance(key, str) and key.lower() in keys:
                    if key.lower() in _ONE_TIME_KEYS:
                        register_one_time_code(inner)
                    else:
                        register_secret(inner)
                elif isinstance(inner, dict | list):
                    stack.append(inner)
        elif isinstance(item, list):
            stack.extend(i for i in item if isinstance(i, dict | list))


def _learn_members(members: Iterable[tuple[str, Any]], *, request: bool) -> None:
    """Register the values under secret keys among ``members`` (``(name, value)`` pairs)."""
    keys = _SECRET_REQUEST_KEYS if request else _SECRET_KEYS
    for key, inner in members:
        if isinstance(inner, str) and key.lower() in keys:
            if key.lower() in _ONE_TIME_KEYS:
                register_one_time_code(inner)
            else:
                register_secret(inner)


def learn_authorization(value: str) -> None:
    """Register a bearer token (or any non-Basic credential) an Authorization header carries."""
    scheme, _, credential = value.partition(" ")
    if credential and scheme.lower() != "basic":
        register_secret(credential.strip())


def _mask(value: Any, keys: frozenset[str]) -> Any:
    if isinstance(value, dict):
        return {
            k: (REDACTED if k.lower() in keys and v is not None else _mask(v, keys))
            for k, v in value.items()
        }
    if isinstance(value, list):
        return [_mask(v, keys) for v in value]
    return value


@dataclass(frozen=True, slots=True)
class Exchange:
    """One request and its response (or transport error), already redacted."""

    method: str
    url: str
    request_headers: Mapping[str, str]
    request_body: str
    curl: str
    status: int | None = None
    response_headers: Mapping[str, str] = field(default_factory=dict)
    response_body: str = ""
    elapsed_ms: float = 0.0
    error: str | None = None

    def summary(self) -> str:
        """One line: method, URL and outcome."""
        outcome = f"-> {self.status}" if self.error is None else f"-> {self.error}"
        return f"{self.method} {self.url} {outcome} ({self.elapsed_ms:.0f} ms)"

    def to_text(self) -> str:
        """The whole exchange as readable text, for reports."""
        lines = [f"{self.method} {self.url}"]
        lines += [f"{k}: {v}" for k, v in self.request_headers.items()]
        if self.request_body:
            lines += ["", self.request_body]
        lines.append("")
        if self.error is not None:
            lines.append(f"<no response: {self.error}>")
        else:
            lines.append(f"HTTP {self.status} ({self.elapsed_ms:.0f} ms)")
            lines += [f"{k}: {v}" for k, v in self.response_headers.items()]
            if self.response_body:
                lines += ["", self.response_body]
        lines += ["", "reproduce:", self.curl]
        return "\n".join(lines)


def build_curl(
    method: str,
    url: str,
    *,
    base_url: str,
    headers: Mapping[str, str],
    body: bytes | None,
    auth_env: tuple[str, str] | None,
    redactor: Redactor,
) -> str:
    """A curl command that reproduces a request, with credentials as environment variables."""
    parts = ["curl", "-sS", "-X", method]
    if url.startswith(base_url):
        parts.append(f'"$CONFORMANCE_BASE_URL"{shlex.quote(url[len(base_url) :])}')
    else:
        parts.append(shlex.quote(url))
    if auth_env is not None:
        parts += ["-u", f'"${auth_env[0]}:${auth_env[1]}"']
    for name, value in headers.items():
        if name.lower() in ("content-length", "host", "accept-encoding", "connection"):
            continue
        if name.lower() == "user-agent":
            continue
        if name.lower() == "authorization" and auth_env is not None:
            continue
        shown = redactor.headers([(name, value)])[name]
        parts += ["-H", shlex.quote(f"{name}: {shown}")]
    if body:
        try:
            masked = _mask(decode_json(body), _SECRET_REQUEST_KEYS)
            text = redactor.text(json.dumps(masked, separators=(",", ":"), ensure_ascii=False))
        except DuplicateMember:  # sent as is: its secrets are learnt first
            _learn_members(member_pairs(body), request=True)
            text = redactor.text(body.decode("utf-8", errors="replace"))
        except DecodeProblem:
            text = redactor.text(body.decode("utf-8", errors="replace"))
        if len(text) > BODY_LIMIT:
            text = text[:BODY_LIMIT] + "..."
        parts += ["--data-raw", shlex.quote(text)]
    return " ".join(parts)
