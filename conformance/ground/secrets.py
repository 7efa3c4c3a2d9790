"""Every secret the run knows, kept in one process-wide registry so every writer can scrub it.

The profile's secrets are registered at start-up (with the HTTP Basic token of each
credential pair); others appear later, inside tests (wallet private keys, session signing
keys, access tokens, OTP codes). A helper that creates or decrypts a secret registers it
here at once, before anything could print it.

A secret is scrubbed in every form an artefact can hold it: raw, base64 (standard and
URL-safe, padded or not, and inside a longer base64 text at any byte offset), URL-encoded,
JSON-escaped (slashes escaped or not), HTML/XML-escaped, hex, and, for PEM keys, the base64 body
and each of its lines. :mod:`conformance.ground.redaction` does the scrubbing, and decodes
JSON string literals written with ``\\u`` escapes, whose mixes no list of forms covers.
"""

from __future__ import annotations

import base64
import html
import json
import re
import threading
from urllib.parse import quote, quote_plus

__all__ = [
    "MIN_SECRET_LENGTH",
    "forms_version",
    "known_forms",
    "known_secrets",
    "known_short_codes",
    "register_basic_credentials",
    "register_one_time_code",
    "register_secret",
    "secret_forms",
]

_LOCK = threading.Lock()
_SECRETS: set[str] = set()
_FORMS: set[str] = set()
_SHORT: set[str] = set()
_VERSION = [0]
# Short values would scrub ordinary text (amounts, ids); real keys are far longer.
MIN_SECRET_LENGTH = 8
# A base64 fragment shorter than this could match ordinary text by chance.
_MIN_FRAGMENT = 8
_PEM = re.compile(r"-----BEGIN ([A-Z0-9 ]+)-----(.*?)-----END \1-----", re.DOTALL)


def register_secret(secret: str | bytes) -> None:
    """Remember ``secret`` (text; bytes also as lower- and upper-case hex) for redaction."""
    values: list[str] = []
    if isinstance(secret, bytes):
        if len(secret) * 2 < MIN_SECRET_LENGTH:
            return
        values += [secret.hex(), secret.hex().upper()]
        forms = {*values, *_base64_forms(secret)}
        try:
            text = secret.decode("utf-8")
        except UnicodeDecodeError:
            pass
        else:
            if len(text) >= MIN_SECRET_LENGTH:
                values.append(text)
                forms |= secret_forms(text)
    else:
        if len(secret) < MIN_SECRET_LENGTH:
            return
        values.append(secret)
        forms = secret_forms(secret)
    with _LOCK:
        before = len(_FORMS)
        _SECRETS.update(values)
        _FORMS.update(f for f in forms if len(f) >= _MIN_FRAGMENT)
        if len(_FORMS) != before:
            _VERSION[0] += 1


def register_one_time_code(code: str) -> None:
    """Remember a short one-time code (an OTP: 4 to 8 digits) for redaction.

    Too short to scrub inside other text, it is scrubbed only where it stands alone (not
    inside a longer run of letters or digits).
    """
    if not (code.isdigit() and 4 <= len(code) <= 8):
        return
    with _LOCK:
        if code not in _SHORT:
            _SHORT.add(code)
            _VERSION[0] += 1


def known_short_codes() -> frozenset[str]:
    """The one-time codes registered so far."""
    with _LOCK:
        return frozenset(_SHORT)


def register_basic_credentials(client_id: str, secret: str) -> None:
    """Remember a secret and the HTTP Basic token ``base64(id:secret)`` it travels in."""
    register_secret(secret)
    token = base64.b64encode(f"{client_id}:{secret}".encode()).decode("ascii")
    register_secret(token)


def known_secrets() -> tuple[str, ...]:
    """Every secret registered so far, longest first (so a secret containing another is
    scrubbed whole)."""
    with _LOCK:
        return tuple(sorted(_SECRETS, key=len, reverse=True))


def forms_version() -> int:
    """A counter that changes whenever a secret (or form) is added."""
    return _VERSION[0]


def known_forms() -> tuple[int, frozenset[str]]:
    """Every form of every registered secret, and a counter that changes when they do."""
    with _LOCK:
        return _VERSION[0], frozenset(_FORMS)


def secret_forms(secret: str) -> set[str]:
    """The forms ``secret`` can take in an artefact (see the module docstring)."""
    forms = {secret}
    for match in _PEM.finditer(secret):
        if "PRIVATE" not in match.group(1):
            continue
        body = match.group(2)
        lines = [line.strip() for line in body.splitlines() if line.strip()]
        forms.add("".join(lines))
        forms.update(line for line in lines if len(line) >= 16)
        forms.add(body.strip())
    raw = secret.encode("utf-8")
    for text in list(forms):
        forms.add(json.dumps(text)[1:-1])
        forms.add(json.dumps(text, ensure_ascii=False)[1:-1])
        forms.add(json.dumps(text)[1:-1].replace("/", "\\/"))  # PHP's json_encode, say
        forms.add(quote(text, safe=""))
        forms.add(quote(text, safe="").replace("%", "%25"))  # encoded twice
        lower = re.sub(r"%[0-9A-F]{2}", lambda m: m.group(0).lower(), quote(text, safe=""))
        forms.add(lower)
        forms.add(quote_plus(text))
        forms.add(html.escape(text, quote=True))
        forms.add(html.escape(text, quote=False))
        forms.add(text.replace("\n", "\\n"))
        forms.add(text.replace("\n", "\r\n"))
    forms |= _base64_forms(raw)
    forms |= {raw.hex(), raw.hex().upper()}  # bytes shown as hex (a dump, a debug log)
    return {f for f in forms if f}


def _base64_forms(raw: bytes) -> set[str]:
    """base64 of ``raw``, standard and URL-safe, padded or not, and the characters that
    encode ``raw`` alone when it sits at any byte offset inside a longer base64 text."""
    forms: set[str] = set()
    for encode in (base64.b64encode, base64.urlsafe_b64encode):
        whole = encode(raw).decode("ascii")
        forms |= {whole, whole.rstrip("=")}
        for offset in range(3):
            encoded = encode(b"\0" * offset + raw).decode("ascii")
            bits_start, bits_end = 8 * offset, 8 * (offset + len(raw))
            first = -(-bits_start // 6)  # the first character made of the secret's bits only
            last = (bits_end - 6) // 6  # the last one
            fragment = encoded[first : last + 1]
            if len(fragment) >= _MIN_FRAGMENT:
                forms.add(fragment)
    return forms
