"""The Authorization a request carries: the client's own credentials, others, a header sent
exactly as given, or none."""

from __future__ import annotations

import base64
from dataclasses import dataclass
from typing import Any

from conformance.ground.profile import Credentials

__all__ = ["DEFAULT_AUTH", "NO_BODY", "Auth", "RawAuthorization", "basic_header"]


class _Default:
    """Marker: use the client's own credentials."""


DEFAULT_AUTH = _Default()
NO_BODY: Any = object()


@dataclass(frozen=True, slots=True)
class RawAuthorization:
    """An Authorization header sent exactly as given (for malformed-credential tests)."""

    value: str


Auth = Credentials | RawAuthorization | _Default | None


def basic_header(client_id: str, secret: str) -> str:
    """The HTTP Basic header value for a token id and secret."""
    token = base64.b64encode(f"{client_id}:{secret}".encode()).decode("ascii")
    return f"Basic {token}"
