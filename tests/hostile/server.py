"""A hostile target on loopback: one misbehaviour per mode, for the kit's own self-tests.

Raw sockets, not an HTTP framework, so it can send what no well-behaved server would:
garbage, half answers, trickles, resets. ``HostileTarget(mode).start()`` returns its base
URL; ``healthy_first=N`` answers the first N requests like a plain target (so a run gets
past its preflight) before misbehaving.
"""

from __future__ import annotations

import base64
import contextlib
import functools
import json
import socket
import struct
import threading
import time
import zlib
from collections.abc import Callable
from urllib.parse import quote

import httpx

__all__ = ["ISSUED_TOKEN", "MALFORMED_MODES", "MODES", "HostileTarget"]

VERSION = "/2025-10-13"
CONFIG = {
    "id": "PlatformConfig:0b6a5d8e-7c4f-4e4a-9d61-8f3b2a1c0d9e",
    "umaDomain": "pay.example.com",
    "supportedCurrencies": [],
    "webhookEndpoint": None,
    "createdAt": "2026-01-01T00:00:00Z",
    "updatedAt": "2026-01-01T00:00:00Z",
}


def _response(
    status: int,
    body: bytes = b"",
    *,
    content_type: str = "application/json",
    headers: tuple[tuple[str, str], ...] = (),
) -> bytes:
    reason = {200: "OK", 302: "Found", 400: "Bad Request", 500: "Internal Server Error",
              503: "Service Unavailable"}.get(status, "Status")  # fmt: skip
    lines = [f"HTTP/1.1 {status} {reason}", f"Content-Type: {content_type}",
             f"Content-Length: {len(body)}", "Connection: close"]  # fmt: skip
    lines += [f"{k}: {v}" for k, v in headers]
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + body


def _json(status: int, value: object, **kwargs: object) -> bytes:
    return _response(status, json.dumps(value).encode(), **kwargs)  # type: ignore[arg-type]


class Request:
    def __init__(self, method: str, path: str, headers: dict[str, str], body: bytes) -> None:
        self.method, self.path, self.headers, self.body = method, path, headers, body

    def echo(self) -> dict[str, object]:
        text = self.body.decode("utf-8", errors="replace")
        return {
            "method": self.method,
            "path": self.path,
            "headers": self.headers,
            "body": text,
            "bodyUrlEncoded": quote(text, safe=""),
            "bodyBase64": base64.b64encode(self.body).decode(),
        }


# A token the echo target issues in its JSON answers and then echoes in its HTML pages: a
# secret the run learns while it runs (from the `accessToken` key), in any worker.
ISSUED_TOKEN = "issued-access-token-7f3c9a1e5b2d4c6f"


def _echo(request: Request, count: int) -> bytes:
    """Everything the target received, back in a different form each time."""
    seen = request.echo()
    auth = request.headers.get("authorization", "")
    if auth.startswith("Basic "):  # and the credentials, decoded: "unknown user id:secret"
        with contextlib.suppress(ValueError):
            auth += " = " + base64.b64decode(auth[6:]).decode("utf-8", errors="replace")
    if count % 3 == 0:
        page = (
            f"<html><body><pre>{json.dumps(seen)}</pre><p>{auth}</p>"
            f"<p>session {ISSUED_TOKEN}</p></body></html>"
        )
        return _response(200, page.encode(), content_type="text/html")
    if count % 3 == 1:
        message = f"could not process '{request.body.decode('utf-8', 'replace')}' for {auth}"
        return _json(400, {"status": 400, "code": "INVALID_INPUT", "message": message,
                           "details": {"errors": [{"field": "x", "echo": seen}]}},
                     headers=(("X-Echo-Authorization", auth),))  # fmt: skip
    return _json(200, {**CONFIG, "echo": seen, "auth": quote(auth, safe=""),
                       "accessToken": ISSUED_TOKEN})  # fmt: skip


TEST_EVENT = json.dumps(
    {"test": True, "timestamp": "2026-01-01T00:00:00Z", "webhookId": "Webhook:0", "type": "TEST"}
).encode()


def _deep(depth: int = 100_000) -> bytes:
    return b"[" * depth + b"]" * depth


# Each mode: request -> raw bytes to send (or None: the mode handles the socket itself).
_MALFORMED: dict[str, Callable[[Request, int], bytes]] = {
    "deep-json": lambda r, n: _response(200, b'{"id": ' + _deep() + b"}"),
    "array": lambda r, n: _json(200, [1, 2, 3]),
    "nulls": lambda r, n: _json(
        200, {"id": None, "data": None, "details": None, "createdAt": None, "status": None}
    ),
    "empty-200": lambda r, n: _response(200, b""),
    "empty-errors": lambda r, n: _json(
        400, {"status": 400, "code": "INVALID_INPUT", "message": "bad", "details": {"errors": []}}
    ),
    "huge-int": lambda r, n: _response(200, b'{"id": "x", "amount": 1' + b"0" * 5000 + b"}"),
    "huge-float": lambda r, n: _response(200, b'{"id": "x", "amount": 1e999999}'),
    "unexpected-key": lambda r, n: _json(200, {"unexpected": {"nested": [None]}}),
    "naive-date": lambda r, n: _json(200, CONFIG, headers=(("Date", "2026-01-01 00:00:00"),)),
    "duplicate-date": lambda r, n: _json(
        200,
        CONFIG,
        headers=(("Date", "Wed, 25 Nov 2026 02:00:00 GMT"), ("Date", "Thu, 26 Nov 2026 03:00:00")),
    ),
    "garbage": lambda r, n: bytes(range(256)) * 4,
    "invalid-utf8": lambda r, n: _response(200, b'{"id": "\xff\xfe\xfa"}'),
    "html-200": lambda r, n: _response(
        200, b"<html><body>Welcome</body></html>", content_type="text/html"
    ),
    "wrong-content-type": lambda r, n: _response(
        200, json.dumps(CONFIG).encode(), content_type="image/png"
    ),
    "truncated-chunked": lambda r, n: (
        b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n"
        b'Connection: close\r\n\r\n10\r\n{"id": "abc"'
    ),
    "redirect-loop": lambda r, n: _response(302, headers=(("Location", r.path),)),
    "redirect-away": lambda r, n: _response(
        302, headers=(("Location", "http://192.0.2.1/elsewhere"),)
    ),
    "error-500": lambda r, n: _json(500, {"status": 500, "code": "INTERNAL", "message": "boom"}),
    "retry-after-503": lambda r, n: _json(
        503,
        {"status": 503, "code": "UNAVAILABLE", "message": "later"},
        headers=(("Retry-After", "3600"),),
    ),
}
MALFORMED_MODES = tuple(_MALFORMED)
# "mixed" answers each request with the next malformed answer in turn
MODES = (*MALFORMED_MODES, "mixed", "echo", "hang", "trickle", "reset", "refuse-later", "flood",
         "plain", "throttle", "throttle-some", "oversized", "bomb", "huge-headers",
         "redirect-307", "null-json", "error-500-some")  # fmt: skip
# "bomb": a JSON answer under Content-Encoding: deflate whose 1.1 MB inflate to 1.1 GiB;
# "huge-headers": 1 MiB of response headers; "redirect-307": 307 to the same path elsewhere;
# "null-json": the JSON null to every request; "error-500-some": 500 to every other request
# "plain" answers like a plain target (the configuration, or an empty object) to every request;
# "throttle": 429 with Retry-After of a day to every request; "throttle-some": to every third
THROTTLED = _json(
    429,
    {"status": 429, "code": "RATE_LIMITED", "message": "too many requests"},
    headers=(("Retry-After", "86400"),),
)


class HostileTarget:
    """A loopback target that misbehaves in one way (``mode``)."""

    def __init__(
        self,
        mode: str,
        *,
        healthy_first: int = 0,
        trickle_interval: float = 0.05,
        oversized_bytes: int = 1 << 20,
        test_events: int = 0,
    ):
        if mode not in MODES:
            raise ValueError(f"unknown mode {mode!r}; one of {MODES}")
        self.mode = mode
        self.healthy_first = healthy_first
        self.trickle_interval = trickle_interval
        self.oversized_bytes = oversized_bytes
        self.requests = 0
        self.received: list[Request] = []
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._socket = socket.create_server(("127.0.0.1", 0))
        self._socket.settimeout(0.2)
        self.port = self._socket.getsockname()[1]
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self.flooded = 0
        self.endpoint: str | None = None  # the webhookEndpoint last PATCHed
        # how many POST /sandbox/webhooks/test are followed by a TEST delivery (badly signed:
        # the target has no key); a "flood" target follows every one
        self.test_events = test_events
        self.misbehaving = threading.Event()  # set at the first hostile answer

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}{VERSION}"

    def start(self) -> str:
        self._thread.start()
        return self.base_url

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(5)
        self._socket.close()

    def __enter__(self) -> HostileTarget:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # -- serving ---------------------------------------------------------------------------

    def _serve(self) -> None:
        while not self._stop.is_set():
            try:
                conn, _ = self._socket.accept()
            except (TimeoutError, OSError):
                continue
            threading.Thread(target=self._handle, args=(conn,), daemon=True).start()

    def _handle(self, conn: socket.socket) -> None:
        with conn:
            conn.settimeout(5)
            try:
                request = _read_request(conn)
            except (OSError, ValueError):
                return
            if request is None:
                return
            with self._lock:
                self.requests += 1
                count = self.requests
                self.received.append(request)
            self._note_webhooks(request)
            try:
                self._answer(conn, request, count)
            except OSError:
                return

    def _answer(self, conn: socket.socket, request: Request, count: int) -> None:
        if count <= self.healthy_first:
            conn.sendall(_plain(request))
            return
        self.misbehaving.set()
        mode = self.mode
        if mode == "hang":
            self._stop.wait(120)
        elif mode == "trickle":
            payload = _json(200, CONFIG)
            while not self._stop.is_set():
                for byte in payload:
                    conn.sendall(bytes([byte]))
                    if self._stop.wait(self.trickle_interval):
                        return
        elif mode == "reset":
            # linger on, zero seconds: closing sends a reset instead of a clean end
            conn.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        elif mode == "refuse-later":
            self._stop.set()  # stop accepting: every later connection is refused
            self._socket.close()
            conn.sendall(_plain(request))
        elif mode == "echo":
            conn.sendall(_echo(request, count))
        elif mode == "mixed":
            conn.sendall(_MALFORMED[MALFORMED_MODES[count % len(MALFORMED_MODES)]](request, count))
        elif mode == "plain":
            conn.sendall(_plain(request))
        elif mode == "throttle" or (mode == "throttle-some" and count % 3 == 0):
            conn.sendall(THROTTLED)
        elif mode == "throttle-some":
            conn.sendall(_plain(request))
        elif mode == "flood":
            self._maybe_flood(request)
            conn.sendall(_plain(request))
        elif mode == "oversized":
            _send_oversized(conn, self.oversized_bytes)
        elif mode == "null-json":
            conn.sendall(_response(200, b"null"))
        elif mode == "error-500-some" and count % 2 == 0:
            conn.sendall(_MALFORMED["error-500"](request, count))
        elif mode == "error-500-some":
            conn.sendall(_plain(request))
        elif mode == "huge-headers":
            pad = tuple((f"X-Pad-{i}", "a" * 1000) for i in range(1024))
            conn.sendall(_json(200, CONFIG, headers=pad))
        elif mode == "redirect-307":
            moved = f"http://127.0.0.1:{self.port}/moved{request.path}"
            conn.sendall(_response(307, headers=(("Location", moved),)))
        elif mode == "bomb":
            body = deflate_bomb()
            conn.sendall(_response(200, body, headers=(("Content-Encoding", "deflate"),)))
        else:
            conn.sendall(_MALFORMED[mode](request, count))

    def _note_webhooks(self, request: Request) -> None:
        """Keep the webhookEndpoint a PATCH sets; deliver the TEST events owed."""
        if request.method == "PATCH":
            try:
                url = json.loads(request.body).get("webhookEndpoint")
            except (ValueError, AttributeError):
                return
            self.endpoint = url if isinstance(url, str) and url else self.endpoint
        elif request.method == "POST" and request.path.endswith("/sandbox/webhooks/test"):
            with self._lock:
                owed = self.mode == "flood" or self.test_events > 0
                self.test_events -= 1
            if owed and self.endpoint:
                threading.Thread(target=self._flood, args=(self.endpoint, 1, [TEST_EVENT]),
                                 daemon=True).start()  # fmt: skip

    def _maybe_flood(self, request: Request) -> None:
        if request.method != "PATCH":
            return
        try:
            url = json.loads(request.body).get("webhookEndpoint")
        except (ValueError, AttributeError):
            return
        if isinstance(url, str) and url:
            threading.Thread(target=self._flood, args=(url,), daemon=True).start()

    def _flood(self, url: str, count: int = 300, bodies: list[bytes] | None = None) -> None:
        bodies = bodies or [_deep(5000), b"\xff\xfe", b"[]", b"null", b'{"type": 1, "data": []}']
        with httpx.Client(timeout=5) as client:
            for index in range(count):
                body = bodies[index % len(bodies)]
                try:
                    client.post(url, content=body, headers={"X-Service-Signature": "AAAA"})
                except httpx.HTTPError:
                    continue
                self.flooded += 1


BOMB_INFLATED = 1100 * 1024 * 1024  # 1.1 GiB once inflated


@functools.cache
def deflate_bomb() -> bytes:
    """A zlib-wrapped deflate stream of about 1.1 MB that inflates to :data:`BOMB_INFLATED`
    bytes: a JSON string of spaces (built once per process, a few seconds of CPU)."""
    packer = zlib.compressobj(9)
    parts = [packer.compress(b'{"id": "')]
    block = b" " * (1 << 20)
    for _ in range(BOMB_INFLATED // len(block)):
        parts.append(packer.compress(block))
    parts += [packer.compress(b'"}'), packer.flush()]
    return b"".join(parts)


def _send_oversized(conn: socket.socket, size: int) -> None:
    """A JSON array of ``size`` bytes, chunked (no Content-Length to refuse it by)."""
    conn.sendall(
        b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
        b"Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n"
    )
    piece = b"1," * 32_768
    sent = 1
    conn.sendall(b"1\r\n[\r\n")
    while sent + len(piece) < size:
        conn.sendall(b"%x\r\n%s\r\n" % (len(piece), piece))
        sent += len(piece)
    conn.sendall(b"2\r\n1]\r\n0\r\n\r\n")


def _plain(request: Request) -> bytes:
    """A well-behaved answer: the configuration for /config, an empty object elsewhere."""
    if request.path.split("?")[0].endswith("/config"):
        return _json(200, CONFIG)
    return _json(200, {})


def _read_request(conn: socket.socket) -> Request | None:
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = conn.recv(65536)
        if not chunk:
            return None
        data += chunk
        if len(data) > 1 << 20:
            raise ValueError("headers too large")
    head, _, body = data.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    method, path, _ = lines[0].split(" ", 2)
    headers = {}
    for line in lines[1:]:
        name, _, value = line.partition(":")
        headers[name.strip().lower()] = value.strip()
    length = int(headers.get("content-length", "0") or 0)
    deadline = time.monotonic() + 5
    while len(body) < length and time.monotonic() < deadline:
        chunk = conn.recv(65536)
        if not chunk:
            break
        body += chunk
    return Request(method, path, headers, body)
