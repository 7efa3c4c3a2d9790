"""The receiver: an HTTP(S) server in daemon threads that records webhook deliveries.

One :class:`SinkServer` runs in the receiver process (the pytest controller, or the only
process without xdist). It answers two kinds of request:

- ``POST /hooks`` (and any path under ``/hooks/``): the target's deliveries. The raw body,
  headers and arrival time are stored; the answer is ``response_status`` with ``{}``.
- ``GET /_sink/deliveries?after=<seq>&wait=<seconds>`` and ``GET /_sink/health``: the
  control API that :class:`~conformance.sink.view.SinkView` reads, from any process. It
  answers loopback clients only. The deliveries call long-polls: it waits on the store's
  condition for at most ``wait`` seconds (capped at 30) for something newer than ``after``.

In HTTPS mode (or when the hook listener is not on loopback) the control API also gets a
plain-HTTP listener of its own on ``127.0.0.1``, so readers never need the throwaway CA.
Errors raised inside handler threads are kept and re-raised by :meth:`SinkServer.check_errors`.
"""

from __future__ import annotations

import contextlib
import ipaddress
import json
import logging
import math
import shutil
import socket
import socketserver
import ssl
import sys
import tempfile
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from types import TracebackType
from typing import Any
from urllib.parse import parse_qs, urlsplit

from .store import DeliveryStore
from .tls import TlsMaterial, generate_tls_material, server_ssl_context

__all__ = ["CONTROL_PREFIX", "HOOKS_PATH", "MAX_BODY_BYTES", "MAX_WAIT_S", "SinkServer"]

logger = logging.getLogger(__name__)

HOOKS_PATH = "/hooks"
"""Where deliveries are accepted (and any path below it)."""
CONTROL_PREFIX = "/_sink"
"""Where the control API lives."""
MAX_BODY_BYTES = 5 * 1024 * 1024
"""Bodies larger than this are answered with 413 and not stored."""
MAX_WAIT_S = 30.0
"""The longest a single long-poll waits on the server side."""

_SOCKET_TIMEOUT_S = 60.0
_POLL_INTERVAL_S = 0.1


def _is_loopback(host: str) -> bool:
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _is_wildcard(host: str) -> bool:
    return host in ("", "0.0.0.0", "::")


def _client_is_loopback(address: Any) -> bool:
    try:
        ip = ipaddress.ip_address(str(address[0]).split("%", 1)[0])
    except (ValueError, IndexError, TypeError):
        return False
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        return ip.ipv4_mapped.is_loopback
    return ip.is_loopback


def _url_host(host: str) -> str:
    if _is_wildcard(host):
        return "127.0.0.1"
    return f"[{host}]" if ":" in host else host


class _BodyRejected(Exception):
    """The body was refused and the answer already sent."""


class _SinkHTTPServer(ThreadingHTTPServer):
    """A threading HTTP server bound to one :class:`SinkServer`; TLS per connection."""

    daemon_threads = True

    def __init__(
        self,
        address: tuple[str, int],
        sink: SinkServer,
        ssl_context: ssl.SSLContext | None,
    ) -> None:
        self.sink = sink
        self.ssl_context = ssl_context
        if ":" in address[0]:
            self.address_family = socket.AF_INET6
        super().__init__(address, _Handler)

    def server_bind(self) -> None:
        # HTTPServer.server_bind resolves the host's FQDN, which can take seconds.
        socketserver.TCPServer.server_bind(self)
        host, port = self.server_address[:2]
        self.server_name = str(host)
        self.server_port = int(port)

    def finish_request(self, request: Any, client_address: Any) -> None:
        # Runs in the connection's own thread, so a slow TLS handshake blocks nobody else.
        if self.ssl_context is None:
            super().finish_request(request, client_address)
            return
        request.settimeout(_SOCKET_TIMEOUT_S)
        tls = self.ssl_context.wrap_socket(request, server_side=True)
        try:
            _Handler(tls, client_address, self)
        finally:
            tls.close()

    def handle_error(self, request: Any, client_address: Any) -> None:
        # Connection-level failures (TLS handshakes with clients that do not trust the CA,
        # resets) are the client's business, not sink errors.
        logger.debug(
            "webhook sink: connection from %s ended with %r", client_address, sys.exc_info()[1]
        )


class _Handler(BaseHTTPRequestHandler):
    server: _SinkHTTPServer
    protocol_version = "HTTP/1.1"
    server_version = "gpsi-conformance-sink/1"
    timeout = _SOCKET_TIMEOUT_S
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
        if not _client_is_loopback(self.client_address):
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


class SinkServer:
    """The webhook receiver: HTTP(S) listener(s) in daemon threads, plus the store.

    Args:
        host: the address to listen on for deliveries (loopback by default).
        port: the port (0 picks a free one).
        https: serve deliveries over TLS with a throwaway CA (see :attr:`ca_pem`).
        public_url: what the target should call instead of the listener's own URL (a
            tunnel, a container host name); :attr:`url` returns it as given.
        response_status: the status answered to deliveries (settable while running).
        max_body_bytes: bodies above this size are answered 413 and not stored.
    """

    def __init__(
        self,
        host: str = "127.0.0.1",
        port: int = 0,
        https: bool = False,
        public_url: str | None = None,
        response_status: int = 200,
        *,
        max_body_bytes: int = MAX_BODY_BYTES,
    ) -> None:
        if not 0 <= port <= 65535:
            raise ValueError(f"SinkServer: port must be 0..65535, got {port!r}")
        if public_url is not None and not public_url.startswith(("http://", "https://")):
            raise ValueError(
                f"SinkServer: public_url must be an http:// or https:// URL, got {public_url!r}"
            )
        if max_body_bytes <= 0:
            raise ValueError(f"SinkServer: max_body_bytes must be > 0, got {max_body_bytes!r}")
        self.host = host
        self.https = https
        self.public_url = public_url
        self.max_body_bytes = max_body_bytes
        self.response_status = response_status
        self.store = DeliveryStore()
        self._requested_port = port
        self._tls: TlsMaterial | None = None
        self._ca_dir: Path | None = None
        self._hooks_server: _SinkHTTPServer | None = None
        self._control_server: _SinkHTTPServer | None = None
        self._threads: list[threading.Thread] = []
        self._errors: list[BaseException] = []
        self._lock = threading.Lock()
        self._state = "new"

    # -- settings ---------------------------------------------------------------------

    @property
    def response_status(self) -> int:
        """The status answered to deliveries (200 unless a test wants the target to retry)."""
        return self._response_status

    @response_status.setter
    def response_status(self, value: int) -> None:
        if not isinstance(value, int) or not 200 <= value <= 599:
            raise ValueError(f"SinkServer: response_status must be 200..599, got {value!r}")
        self._response_status = value

    # -- life cycle -------------------------------------------------------------------

    def start(self) -> SinkServer:
        """Bind and serve in daemon threads. Calling it on a running sink does nothing."""
        with self._lock:
            if self._state == "running":
                return self
            if self._state == "stopped":
                raise RuntimeError("SinkServer: a stopped sink cannot be restarted")
            context = None
            if self.https:
                self._tls = generate_tls_material(_tls_hosts(self.host))
                context = server_ssl_context(self._tls)
                self._ca_dir = Path(tempfile.mkdtemp(prefix="gpsi-sink-ca-"))
                (self._ca_dir / "ca.pem").write_bytes(self._tls.ca_pem)
            self._hooks_server = _SinkHTTPServer((self.host, self._requested_port), self, context)
            if self.https or not _is_loopback(self.host):
                try:
                    self._control_server = _SinkHTTPServer(("127.0.0.1", 0), self, None)
                except OSError:
                    self._hooks_server.server_close()
                    raise
            for name, server in self._servers():
                thread = threading.Thread(
                    target=server.serve_forever,
                    kwargs={"poll_interval": _POLL_INTERVAL_S},
                    name=f"gpsi-sink-{name}",
                    daemon=True,
                )
                thread.start()
                self._threads.append(thread)
            self._state = "running"
        return self

    def stop(self) -> None:
        """Stop serving, wake long-polls and join the threads. Safe to call repeatedly."""
        with self._lock:
            if self._state != "running":
                self._state = "stopped"
                return
            self._state = "stopped"
        self.store.close()
        for _, server in self._servers():
            server.shutdown()
            server.server_close()
        for thread in self._threads:
            thread.join(timeout=10)
        if self._ca_dir is not None:
            shutil.rmtree(self._ca_dir, ignore_errors=True)

    def __enter__(self) -> SinkServer:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()

    def _servers(self) -> list[tuple[str, _SinkHTTPServer]]:
        servers = [("hooks", self._hooks_server), ("control", self._control_server)]
        return [(name, server) for name, server in servers if server is not None]

    def _require(self) -> _SinkHTTPServer:
        if self._hooks_server is None:
            raise RuntimeError("SinkServer: not started; call start() or use it as a context")
        return self._hooks_server

    # -- addresses --------------------------------------------------------------------

    @property
    def port(self) -> int:
        """The port deliveries are received on."""
        return int(self._require().server_address[1])

    @property
    def url(self) -> str:
        """What to register as ``webhookEndpoint``: ``public_url`` if given, else our own."""
        if self.public_url is not None:
            return self.public_url
        scheme = "https" if self.https else "http"
        return f"{scheme}://{_url_host(self.host)}:{self.port}{HOOKS_PATH}"

    @property
    def control_url(self) -> str:
        """The control API's base URL, always plain HTTP on loopback."""
        server = self._control_server or self._require()
        host = str(server.server_address[0])
        if _is_wildcard(host) or not _is_loopback(host):
            host = "127.0.0.1"
        return f"http://{_url_host(host)}:{server.server_address[1]}{CONTROL_PREFIX}"

    @property
    def ca_pem(self) -> bytes | None:
        """The throwaway CA certificate (PEM) in HTTPS mode, else ``None``."""
        return self._tls.ca_pem if self._tls is not None else None

    @property
    def ca_file(self) -> Path | None:
        """A file holding :attr:`ca_pem` while the sink runs (HTTPS mode), else ``None``."""
        return self._ca_dir / "ca.pem" if self._ca_dir is not None else None

    # -- errors -----------------------------------------------------------------------

    def _record_error(self, exc: BaseException) -> None:
        logger.error("webhook sink: error in a handler thread", exc_info=exc)
        with self._lock:
            self._errors.append(exc)

    @property
    def errors(self) -> tuple[BaseException, ...]:
        """Errors raised inside handler threads and not yet re-raised."""
        with self._lock:
            return tuple(self._errors)

    def check_errors(self) -> None:
        """Re-raise errors from handler threads (once each), then forget them."""
        with self._lock:
            errors, self._errors = self._errors, []
        if len(errors) == 1:
            raise errors[0]
        if errors:
            raise BaseExceptionGroup(
                f"{len(errors)} errors in the webhook sink's handler threads", errors
            )

    def __repr__(self) -> str:
        where = self.url if self._hooks_server is not None else "not started"
        return f"<SinkServer {self._state} {where} deliveries={self.store.last_seq}>"


def _tls_hosts(host: str) -> list[str]:
    hosts = ["127.0.0.1", "localhost", "::1"]
    if not _is_wildcard(host) and host not in hosts:
        hosts.insert(0, host)
    return hosts
