"""A target that differs from the reference only where the interface is open.

A loopback HTTP proxy in front of a running reference sandbox. Every request is forwarded
as is; every JSON answer is rewritten in ways the interface allows (DESIGN.md, Verdicts):

- every object carries one more field (``vendorExtension``), lists and errors included
  (objects whose fields the interface does not close, e.g. ``contactVerification``,
  ``feeConfigs`` entries);
- ``details.errors[].constraint`` is an object ``{name, value}`` (§7: "a machine-readable
  constraint", no type);
- a ``feeConfigs`` fixed fee is a money object ``{amount, currency}`` (§2: "a fixed
  amount").

Webhook deliveries go from the reference to the suite's sink directly, unchanged (their
signature covers the exact bytes). The suite run against this proxy must fail nothing the
reference passes.
"""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import httpx
import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

EXTRA_KEY = "vendorExtension"
EXTRA_VALUE = {"note": "a field the interface does not name"}
USD = {"code": "USD", "name": "US Dollar", "symbol": "$", "decimals": 2}
# dropped when forwarding: recomputed by the proxy's own server (a second Date header would
# be joined with the first into one value)
_HOP_HEADERS = {
    "content-length", "content-encoding", "transfer-encoding", "connection", "host", "date",
    "server",
}  # fmt: skip


def rewrite(value: Any, *, fixed_fee_key: str = "fixedFee") -> Any:
    """The JSON ``value`` as the open variant answers it (see the module docstring)."""
    if isinstance(value, list):
        return [rewrite(v, fixed_fee_key=fixed_fee_key) for v in value]
    if not isinstance(value, dict):
        return value
    out = {k: rewrite(v, fixed_fee_key=fixed_fee_key) for k, v in value.items()}
    if isinstance(out.get("constraint"), str):
        out["constraint"] = {"name": out["constraint"], "value": None}
    fees = out.get("feeConfigs")
    if isinstance(fees, list):
        for entry in fees:
            fixed = entry.get(fixed_fee_key) if isinstance(entry, dict) else None
            if isinstance(fixed, int) and not isinstance(fixed, bool):
                entry[fixed_fee_key] = {"amount": fixed, "currency": USD}
    out[EXTRA_KEY] = dict(EXTRA_VALUE)
    return out


def proxy_app(upstream: str) -> Starlette:
    """An app forwarding every request to ``upstream`` (scheme, host and port)."""
    client = httpx.AsyncClient(base_url=upstream, timeout=30.0)

    async def forward(request: Request) -> Response:
        headers = {k: v for k, v in request.headers.items() if k.lower() not in _HOP_HEADERS}
        answer = await client.request(
            request.method,
            request.url.path,
            params=request.query_params.multi_items(),
            headers=headers,
            content=await request.body(),
        )
        body = answer.content
        if answer.headers.get("content-type", "").startswith("application/json") and body:
            body = json.dumps(rewrite(json.loads(body))).encode()
        kept = {k: v for k, v in answer.headers.items() if k.lower() not in _HOP_HEADERS}
        return Response(body, status_code=answer.status_code, headers=kept)

    methods = ["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"]
    return Starlette(routes=[Route("/{path:path}", forward, methods=methods)])


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextmanager
def serving(upstream: str) -> Iterator[str]:
    """Serve the open variant of ``upstream`` on loopback; yields its root URL."""
    port = _free_port()
    server = uvicorn.Server(
        uvicorn.Config(proxy_app(upstream), host="127.0.0.1", port=port, log_level="warning")
    )
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started and time.monotonic() < deadline:
        time.sleep(0.02)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(10)
