"""Secrets the run learns while it runs (wallet private keys, session signing keys, agent
tokens), kept in one process-wide registry so every writer can scrub them.

The profile's own secrets are known at start-up; these appear later, inside tests. A helper
that creates or decrypts a secret registers it here at once, before anything could print it.
"""

from __future__ import annotations

import threading

__all__ = ["known_secrets", "register_secret"]

_LOCK = threading.Lock()
_SECRETS: set[str] = set()
# Short values would scrub ordinary text (amounts, ids); real keys are far longer.
MIN_SECRET_LENGTH = 8


def register_secret(secret: str | bytes) -> None:
    """Remember ``secret`` (text, or bytes kept as lower-case hex) for redaction."""
    value = secret.hex() if isinstance(secret, bytes) else secret
    if len(value) < MIN_SECRET_LENGTH:
        return
    with _LOCK:
        _SECRETS.add(value)


def known_secrets() -> tuple[str, ...]:
    """Every secret registered so far, longest first (so a secret containing another is
    scrubbed whole)."""
    with _LOCK:
        return tuple(sorted(_SECRETS, key=len, reverse=True))
