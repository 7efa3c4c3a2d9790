"""How the reference adapter reaches the sandbox: plain HTTP with the profile's credentials,
to the versioned base URL, raising :class:`AdapterError` with the sandbox's answer when a
trigger is refused. The adapter modules share it and never import ``conformance``.
"""

from __future__ import annotations

import base64
import json
import re
import threading
from dataclasses import dataclass
from typing import Any

import httpx

from reference import INTERFACE_VERSION
from reference.adapter.capped_read import TooLarge, UnreadableBody, read_decoded

_VERSION_SEGMENT = re.compile(r"/\d{4}-\d{2}-\d{2}$")


_local = threading.local()


def _client() -> httpx.Client:
    """One client per thread, kept: a new one per trigger costs a TLS context (~20 ms)."""
    client: httpx.Client | None = getattr(_local, "client", None)
    if client is None:
        client = _local.client = httpx.Client()
    return client


class AdapterError(RuntimeError):
    """The sandbox refused a trigger, or answered what the adapter cannot use; the message
    names the request and the answer."""


@dataclass(frozen=True, slots=True)
class Answer:
    """A successful answer of the sandbox, read whole (within the cap)."""

    method: str
    path: str
    status_code: int
    content: bytes

    def json(self) -> Any:
        """The decoded JSON body; :class:`AdapterError` naming the answer otherwise."""
        try:
            return json.loads(self.content)
        except ValueError:
            raise AdapterError(
                f"{self.method} {self.path} answered {self.status_code} with a body that is not "
                f"JSON: {_excerpt(self.content)}"
            ) from None

    def object(self) -> dict[str, Any]:
        """The JSON object the sandbox answered; :class:`AdapterError` for anything else."""
        value = self.json()
        if not isinstance(value, dict):
            raise AdapterError(
                f"{self.method} {self.path} answered {self.status_code} with "
                f"{_excerpt(self.content)}, not a JSON object"
            )
        return value

    def member(self, name: str) -> Any:
        """The member ``name`` of the JSON object answered (not null)."""
        value = self.object().get(name)
        if value is None:
            raise AdapterError(
                f"{self.method} {self.path} answered {self.status_code} without {name!r}: "
                f"{_excerpt(self.content)}"
            )
        return value


def _excerpt(content: bytes, limit: int = 200) -> str:
    text = content.decode("utf-8", errors="replace")
    return repr(text[:limit]) + ("..." if len(text) > limit else "")


def base_url(profile: Any) -> str:
    """The versioned base URL, whether or not the profile's carries the date segment."""
    url = str(profile.base_url).rstrip("/")
    return url if _VERSION_SEGMENT.search(url) else f"{url}/{INTERFACE_VERSION}"


def call(profile: Any, method: str, path: str, body: dict[str, Any] | None = None) -> Answer:
    """``method path`` (with ``body`` as JSON when given); raise :class:`AdapterError`
    unless it succeeded. The answer is read within a cap on its decoded size."""
    client = _client()
    request = client.build_request(
        method,
        base_url(profile) + path,
        json=body,
        timeout=float(getattr(profile, "request_timeout", 10.0)),
    )
    token = base64.b64encode(f"{profile.client_id}:{profile.client_secret}".encode()).decode()
    request.headers["Authorization"] = f"Basic {token}"
    try:
        response = client.send(request, stream=True)
    except httpx.HTTPError as exc:
        raise AdapterError(f"{method} {path} got no answer: {type(exc).__name__}: {exc}") from None
    try:
        content = read_decoded(response.iter_raw(), response.headers.get("content-encoding"))
    except (TooLarge, UnreadableBody) as exc:
        raise AdapterError(f"{method} {path} answered {response.status_code}: {exc}") from None
    except httpx.HTTPError as exc:
        raise AdapterError(
            f"{method} {path} answered {response.status_code}, then the body broke off: {exc}"
        ) from None
    finally:
        response.close()
    if not response.is_success:
        raise AdapterError(f"{method} {path} answered {response.status_code}: {_excerpt(content)}")
    return Answer(method, path, response.status_code, content)


def post(profile: Any, path: str, body: dict[str, Any]) -> dict[str, Any]:
    """``POST path`` with a JSON body; the JSON object it answered."""
    return call(profile, "POST", path, body).object()


def member(record: dict[str, Any], name: str, where: str) -> Any:
    """``record[name]``; :class:`AdapterError` naming ``where`` the record came from (``the
    answer to POST /agents``) and what it holds, when it lacks the member (or holds null)."""
    value = record.get(name)
    if value is None:
        raise AdapterError(f"{where} carries no {name!r}: {json.dumps(record, default=str)[:200]}")
    return value
