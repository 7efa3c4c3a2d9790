"""How the reference adapter reaches the sandbox: plain HTTP with the profile's credentials,
to the versioned base URL, raising :class:`AdapterError` with the sandbox's answer when a
trigger is refused. The adapter modules share it and never import ``conformance``.
"""

from __future__ import annotations

import re
import threading
from typing import Any

import httpx

from reference import INTERFACE_VERSION

_VERSION_SEGMENT = re.compile(r"/\d{4}-\d{2}-\d{2}$")


_local = threading.local()


def _client() -> httpx.Client:
    """One client per thread, kept: a new one per trigger costs a TLS context (~20 ms)."""
    client: httpx.Client | None = getattr(_local, "client", None)
    if client is None:
        client = _local.client = httpx.Client()
    return client


class AdapterError(RuntimeError):
    """The sandbox refused a trigger; the message carries its answer."""


def base_url(profile: Any) -> str:
    """The versioned base URL, whether or not the profile's carries the date segment."""
    url = str(profile.base_url).rstrip("/")
    return url if _VERSION_SEGMENT.search(url) else f"{url}/{INTERFACE_VERSION}"


def call(
    profile: Any, method: str, path: str, body: dict[str, Any] | None = None
) -> httpx.Response:
    """``method path`` (with ``body`` as JSON when given); raise unless it succeeded."""
    response = _client().request(
        method,
        base_url(profile) + path,
        json=body,
        auth=(profile.client_id, profile.client_secret),
        timeout=float(getattr(profile, "request_timeout", 10.0)),
    )
    if not response.is_success:
        raise AdapterError(
            f"{method} {path} answered {response.status_code}: {response.text[:500]}"
        )
    return response


def post(profile: Any, path: str, body: dict[str, Any]) -> dict[str, Any]:
    """``POST path`` with a JSON body; the JSON object it answered."""
    answer: dict[str, Any] = call(profile, "POST", path, body).json()
    return answer
