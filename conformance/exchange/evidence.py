"""Evidence of each exchange with the target: redacted, readable, reproducible with curl.

Nothing secret leaves this module: the Authorization header is replaced, secret-looking
JSON keys are masked, and every secret value the profile holds is scrubbed from any text.

A curl line sends what the test sent. The credentials of an HTTP Basic header are read back
from the header itself: a token id or secret the profile holds becomes the environment
variable that holds it (``$CONFORMANCE_CLIENT_SECRET``); any other (a wrong secret, an
unknown token id, a bearer token) becomes a placeholder that says it is not the profile's,
which, sent as it stands, is just as wrong as what the test sent.
"""

from __future__ import annotations

import base64
import binascii
import json
import shlex
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from conformance.exchange.decoding import (
    DecodeProblem,
    DuplicateMember,
    decode_json,
    member_pairs,
)
from conformance.ground.redaction import REDACTED, scrub
from conformance.ground.secrets import register_one_time_code, register_secret

if TYPE_CHECKING:  # the profile is read, never built, here: the run's floor stays above
    from conformance.ground.profile import Credentials, TargetProfile

__all__ = [
    "NOT_THE_PROFILE_S",
    "REDACTED",
    "Exchange",
    "ExchangeLog",
    "Redactor",
    "build_curl",
    "learn_authorization",
    "learn_secrets",
]

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
# In requests `code` carries one-time codes (§4 verify-*/confirm, quote authorize); in
# responses it is an error or currency code, and so it is in a request's currency object
# (`{code, name?, symbol?, decimals}`, §2: in the events a receiver check delivers).
_SECRET_REQUEST_KEYS = _SECRET_KEYS | {"code"}
_ONE_TIME_KEYS = frozenset(("code", "otp", "otpcode", "otp_code"))
_SECRET_HEADERS = frozenset(
    ("authorization", "proxy-authorization", "cookie", "set-cookie", "service-wallet-signature")
)
# How a curl line shows a credential the test sent that the profile does not hold.
NOT_THE_PROFILE_S = {
    "id": "<a token id that is not the profile's>",
    "secret": "<a secret that is not the profile's>",
    "token": "<a token that is not a profile credential>",
}


@dataclass(frozen=True, slots=True)
class Redactor:
    """Masks secrets in headers, JSON bodies and free text."""

    secrets: tuple[str, ...] = ()
    # the profile's credential pairs: a curl line names them by their environment variables
    credentials: tuple[Credentials, ...] = field(default=(), repr=False)

    @classmethod
    def for_profile(cls, profile: TargetProfile) -> Redactor:
        """The redactor of a run against ``profile``: its secrets, its credentials."""
        return cls(profile.secrets, profile.credentials)

    def curl_user(self, client_id: str, secret: str) -> str:
        """The ``-u`` value of a curl line for the Basic credentials a request sent."""
        for pair in self.credentials:  # a pair of the profile, as it stands
            if (pair.client_id, pair.client_secret) == (client_id, secret):
                return f'"${pair.id_env}:${pair.secret_env}"'
        shown_id = next(
            (f"${c.id_env}" for c in self.credentials if c.client_id == client_id),
            NOT_THE_PROFILE_S["id"] if client_id else "",
        )
        shown_secret = next(
            (f"${c.secret_env}" for c in self.credentials if c.client_secret == secret),
            NOT_THE_PROFILE_S["secret"] if secret else "",
        )
        return f'"{shown_id}:{shown_secret}"'

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
                if isinstance(inner, str) and isinstance(key, str) and _is_secret(key, item, keys):
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


def _is_secret(key: str, holder: Mapping[str, Any], keys: frozenset[str]) -> bool:
    """Whether ``holder``'s member ``key`` holds a secret: a secret key, other than the
    ``code`` of a currency object (one with ``decimals``)."""
    name = key.lower()
    return name in keys and not (name == "code" and "decimals" in holder)


def _mask(value: Any, keys: frozenset[str]) -> Any:
    if isinstance(value, dict):
        return {
            k: (REDACTED if v is not None and _is_secret(k, value, keys) else _mask(v, keys))
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


def _basic_text(authorization: str | None) -> str | None:
    """The text an HTTP Basic header's token decodes to, or None (another scheme, no token,
    not base64 of UTF-8)."""
    scheme, _, token = (authorization or "").strip().partition(" ")
    if scheme.lower() != "basic" or not token.strip():
        return None
    try:
        return base64.b64decode(token.strip(), validate=True).decode("utf-8")
    except (binascii.Error, ValueError):
        return None


def basic_credentials(authorization: str | None) -> tuple[str, str] | None:
    """The token id and secret an HTTP Basic header carries, or None when it carries no
    well-formed pair (another scheme, not base64, no colon)."""
    decoded = _basic_text(authorization)
    client_id, colon, secret = (decoded or "").partition(":")
    return (client_id, secret) if decoded is not None and colon else None


def _curl_authorization(name: str, value: str, redactor: Redactor) -> str:
    """The ``-H`` value of an Authorization header that is not a Basic pair, quoted for a
    shell: a Basic token of one profile credential alone (no colon) encoded from its
    variable, another scheme's credential as a placeholder, anything else as sent."""
    decoded = _basic_text(value)
    known = next(
        (variable for c in redactor.credentials
         for variable, held in ((c.id_env, c.client_id), (c.secret_env, c.client_secret))
         if decoded == held),
        None,
    )  # fmt: skip
    if known is not None:
        return f'"{name}: Basic $(printf %s "${known}" | base64)"'
    scheme, _, credential = value.strip().partition(" ")
    if credential.strip() and scheme.lower() != "basic":
        return shlex.quote(f"{name}: {scheme} {NOT_THE_PROFILE_S['token']}")
    return shlex.quote(f"{name}: {redactor.text(value)}")


def build_curl(
    method: str,
    url: str,
    *,
    base_url: str,
    headers: Mapping[str, str],
    body: bytes | None,
    redactor: Redactor,
) -> str:
    """A curl command that sends the request that was sent: the profile's credentials as
    environment variables, any other credential as a placeholder (see the module's text)."""
    parts = ["curl", "-sS", "-X", method]
    if url.startswith(base_url):
        parts.append(f'"$CONFORMANCE_BASE_URL"{shlex.quote(url[len(base_url) :])}')
    else:
        parts.append(shlex.quote(url))
    authorization = next((v for k, v in headers.items() if k.lower() == "authorization"), None)
    pair = basic_credentials(authorization)
    if pair is not None:
        parts += ["-u", redactor.curl_user(*pair)]
    for name, value in headers.items():
        if name.lower() in ("content-length", "host", "accept-encoding", "connection"):
            continue
        if name.lower() == "user-agent":
            continue
        if name.lower() == "authorization":
            if pair is None:
                parts += ["-H", _curl_authorization(name, value, redactor)]
            continue
        shown = redactor.headers([(name, value)])[name]
        parts += ["-H", shlex.quote(f"{name}: {shown}")]
    if body:
        try:
            text = _curl_json(body, redactor)
        except DuplicateMember:  # sent as is: its secrets are learnt first
            _learn_members(member_pairs(body), request=True)
            text = redactor.text(body.decode("utf-8", errors="replace"))
        except DecodeProblem:
            text = redactor.text(body.decode("utf-8", errors="replace"))
        if len(text) > BODY_LIMIT:
            text = text[:BODY_LIMIT] + "..."
        parts += ["--data-raw", shlex.quote(text)]
    return " ".join(parts)


def _curl_json(body: bytes, redactor: Redactor) -> str:
    """A JSON body as a curl line sends it: the bytes that were sent where they hold no
    secret (a signed webhook delivery's signature covers exactly them), else re-serialised
    with every secret masked."""
    data = decode_json(body)
    masked = _mask(data, _SECRET_REQUEST_KEYS)
    shown = json.dumps(masked, separators=(",", ":"), ensure_ascii=False)
    sent = body.decode("utf-8", errors="replace")
    # the decoded text is scrubbed too: a secret written with \u escapes is whole only there
    if masked == data and redactor.text(shown) == shown and redactor.text(sent) == sent:
        return sent
    return redactor.text(shown)


class ExchangeLog:
    """The exchanges of the test that is running; the plugin empties it between tests."""

    def __init__(self) -> None:
        self._items: list[Exchange] = []

    def append(self, exchange: Exchange) -> None:
        self._items.append(exchange)

    def last(self) -> Exchange | None:
        """The latest exchange of the running test, if any."""
        return self._items[-1] if self._items else None

    def take(self) -> list[Exchange]:
        items, self._items = self._items, []
        return items

    def __len__(self) -> int:
        return len(self._items)
