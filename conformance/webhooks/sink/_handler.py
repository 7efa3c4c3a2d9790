"""The sink's HTTP request handler: deliveries in, the ``/_sink/`` control API out.

Every connection a :class:`~conformance.webhooks.sink._listener.SinkHTTPServer` accepts is served by
a :class:`SinkRequestHandler`. It answers two kinds of request:

- ``POST /hooks`` (and any path under ``/hooks/``): the target's deliveries. The raw body,
  headers and arrival time are stored; the answer is ``response_status`` with ``{}``.
- ``GET /_sink/deliveries?after=<seq>&wait=<seconds>`` and ``GET /_sink/health``: the
  control API that :class:`~conformance.webhooks.sink.view.SinkView` reads, from any process. It
  answers loopback clients only. The deliveries call long-polls: it waits on the store's
  condition for at most ``wait`` seconds (capped at 30) for something newer than ``after``.

Bodies (``Content-Length`` or chunked) above the sink's ``max_body_bytes`` are answered 413
and not stored. Unexpected errors are handed to the sink, which re-raises them from
:meth:`~conformance.webhooks.sink.server.SinkServer.check_errors`.
"""

from __future__ import annotations

import contextlib
import json
import logging
import math
from http.server import BaseHTTPRequestHandler
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qs, urlsplit

from ._addresses import client_is_loopback

if TYPE_CHECKING:
    from ._listener import SinkHTTPServer

__all__ = [
    "CONTROL_PREFIX",
    "HOOKS_PATH",
    "MAX_BODY_BYTES",
    "MAX_WAIT_S",
    "SOCKET_TIMEOUT_S",
    "SinkRequestHandler",
]

# Named after the receiver module, where these records came from before the split, so
# logging configuration aimed at the sink keeps catching them.
logger = logging.getLogger("conformance.webhooks.sink.server")

HOOKS_PATH = "/hooks"
"""Where deliveries are accepted (and any path below it)."""
CONTROL_PREFIX = "/_sink"
"""Where the control API lives."""
MAX_BODY_BYTES = 5 * 1024 * 1024
"""Bodies larger than this are answered with 413 and not stored."""
MAX_WAIT_S = 30.0
"""The longest a single long-poll waits on the server side."""
SOCKET_TIMEOUT_S = 60.0
"""How long a connection may sit idle (TLS handshake included) before it is dropped."""


class _BodyRejected(Exception):
    """The body was refused and the answer already sent."""


class SinkRequestHandler(BaseHTTPRequestHandler):
    """Routes one connection's requests to the delivery store or the control API."""

    server: SinkHTTPServer
    protocol_version = "HTTP/1.1"
    server_version = "gpsi-conformance-sink/1"
    timeout = SOCKET_TIMEOUT_S
    disable_nagle_algorithm = True  # headers and body are separate writes: no 40 ms stalls

    def log_message(self, format: str, *args: Any) -> None:
        logger.debug("webhook sink: %s " + format, self.address_string(), *args)

    def do_GET(self) -> None:
        self._dispatch()

    def do_POST(self) -> None:
        self._dispatch()

    def do_PUT(self) -> None:
        self._dispatch()

    def do_PATCH(self) -> None:
        self._dispatch()

    def do_DELETE(self) -> None:
        self._dispatch()

    def handle_expect_100(self) -> bool:
        length = self._content_length()
        if length is not None and length > self.server.sink.max_body_bytes:
            self._send_too_large(length)
            return False
        return super().handle_expect_100()

    # -- dispatch ---------------------------------------------------------------------

    def _dispatch(self) -> None:
        try:
            self._route()
        except _BodyRejected:
            pass
        except (ConnectionError, TimeoutError):
            self.close_connection = True
        except Exception as exc:
            self.server.sink._record_error(exc)
            self.close_connection = True
            with contextlib.suppress(OSError):
                self._send_json(500, {"error": f"webhook sink error: {type(exc).__name__}"})

    def _route(self) -> None:
        path = urlsplit(self.path).path
        if path == HOOKS_PATH or path.startswith(HOOKS_PATH + "/"):
            self._hooks()
        elif path == CONTROL_PREFIX or path.startswith(CONTROL_PREFIX + "/"):
            self._control(path[len(CONTROL_PREFIX) :])
        else:
            self._refuse(404, f"no such path {path!r}; deliveries go to {HOOKS_PATH}")

    def _hooks(self) -> None:
        if self.command != "POST":
            self._refuse(405, "deliveries must be POST", allow="POST")
            return
        body = self._read_body()
        sink = self.server.sink
        sink.store.add(self.command, self.path, self.headers.items(), body)
        self._send_json(sink.response_status, {})

    def _control(self, sub: str) -> None:
        if not client_is_loopback(self.client_address):
            self._refuse(403, "the sink control API answers loopback clients only")
            return
        if self.command != "GET":
            self._refuse(405, "the control API is read-only", allow="GET")
            return
        store = self.server.sink.store
        if sub == "/health":
            self._send_json(200, {"status": "ok", "deliveries": store.last_seq})
        elif sub == "/deliveries":
            query = parse_qs(urlsplit(self.path).query)
            try:
                after = int(query.get("after", ["0"])[0])
                wait = float(query.get("wait", ["0"])[0])
                if after < 0 or wait < 0 or math.isnan(wait):
                    raise ValueError("negative")
            except ValueError:
                self._refuse(400, "after must be an integer >= 0 and wait a number >= 0")
                return
            wait = min(wait, MAX_WAIT_S)
            items = store.wait_after(after, wait) if wait > 0 else store.since(after)
            self._send_json(
                200,
                {
                    "deliveries": [item.to_json_dict() for item in items],
                    "last_seq": store.last_seq,
                },
            )
        else:
            self._refuse(404, f"no control endpoint {CONTROL_PREFIX + sub!r}")

    # -- bodies -----------------------------------------------------------------------

    def _content_length(self) -> int | None:
        value = self.headers.get("Content-Length")
        if value is None:
            return None
        try:
            length = int(value)
        except ValueError:
            return -1
        return length

    def _read_body(self) -> bytes:
        limit = self.server.sink.max_body_bytes
        if "chunked" in self.headers.get("Transfer-Encoding", "").lower():
            return self._read_chunked(limit)
        length = self._content_length()
        if length is None:
            return b""
        if length < 0:
            self.close_connection = True
            self._refuse(400, "Content-Length is not a non-negative integer")
            raise _BodyRejected
        if length > limit:
            self._send_too_large(length)
            raise _BodyRejected
        data = self.rfile.read(length)
        if len(data) < length:
            raise ConnectionError("client closed the connection before sending the whole body")
        return data

    def _read_chunked(self, limit: int) -> bytes:
        chunks: list[bytes] = []
        total = 0
        while True:
            line = self.rfile.readline(65537)
            if not line:
                raise ConnectionError("client closed the connection inside a chunked body")
            try:
                size = int(line.split(b";", 1)[0].strip(), 16)
            except ValueError:
                self.close_connection = True
                self._refuse(400, "malformed chunked body")
                raise _BodyRejected from None
            if size == 0:
                while self.rfile.readline(65537) not in (b"\r\n", b"\n", b""):
                    pass  # trailers
                return b"".join(chunks)
            total += size
            if total > limit:
                self._send_too_large(total)
                raise _BodyRejected
            chunks.append(self.rfile.read(size))
            self.rfile.readline(3)

    # -- answers ----------------------------------------------------------------------

    def _send_too_large(self, length: int) -> None:
        self.close_connection = True
        limit = self.server.sink.max_body_bytes
        self._send_json(413, {"error": f"body of {length} bytes exceeds the {limit}-byte limit"})

    def _refuse(self, status: int, message: str, *, allow: str | None = None) -> None:
        has_body = self.headers.get("Content-Length") not in (None, "0")
        if has_body or "chunked" in self.headers.get("Transfer-Encoding", "").lower():
            self.close_connection = True  # the body was not read
        headers = {"Allow": allow} if allow else {}
        self._send_json(status, {"error": message}, headers)

    def _send_json(self, status: int, payload: Any, headers: dict[str, str] | None = None) -> None:
        has_body = status not in (204, 304) and not 100 <= status < 200
        body = json.dumps(payload).encode() if has_body else b""
        self.send_response(status)
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        if has_body:
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
        if self.close_connection:
            self.send_header("Connection", "close")
        self.end_headers()
        if body:
            self.wfile.write(body)
        self.wfile.flush()
