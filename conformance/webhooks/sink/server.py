"""The receiver: an HTTP(S) server in daemon threads that records webhook deliveries.

One :class:`SinkServer` runs in the receiver process (the pytest controller, or the only
process without xdist). It owns the :class:`~conformance.webhooks.sink.store.DeliveryStore`, the
settings its handler reads (``response_status``, ``max_body_bytes``) and the life cycle of
its listeners:

- deliveries arrive on ``POST /hooks`` and the control API answers on ``/_sink/``; the
  request handling (routes, size limits, chunked bodies) is in :mod:`._handler`.
- each listener is a :class:`~conformance.webhooks.sink._listener.SinkHTTPServer` (TLS per
  connection) whose accept loop runs in a daemon thread.

In HTTPS mode (or when the hook listener is not on loopback) the control API also gets a
plain-HTTP listener of its own on ``127.0.0.1``, so readers never need the throwaway CA.
Errors raised inside handler threads are kept and re-raised by :meth:`SinkServer.check_errors`.
"""

from __future__ import annotations

import logging
import shutil
import tempfile
import threading
from pathlib import Path
from types import TracebackType

from ._addresses import is_loopback, is_wildcard, tls_hosts, url_host
from ._handler import CONTROL_PREFIX, HOOKS_PATH, MAX_BODY_BYTES, MAX_WAIT_S
from ._listener import SinkHTTPServer
from .store import DeliveryStore
from .tls import TlsMaterial, generate_tls_material, server_ssl_context

# The path and limit constants live with the handler that enforces them; they stay
# importable from here, where readers (and :mod:`.view`) have always found them.
__all__ = ["CONTROL_PREFIX", "HOOKS_PATH", "MAX_BODY_BYTES", "MAX_WAIT_S", "SinkServer"]

logger = logging.getLogger(__name__)


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
        self._hooks_server: SinkHTTPServer | None = None
        self._control_server: SinkHTTPServer | None = None
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
                self._tls = generate_tls_material(tls_hosts(self.host))
                context = server_ssl_context(self._tls)
                self._ca_dir = Path(tempfile.mkdtemp(prefix="gpsi-sink-ca-"))
                (self._ca_dir / "ca.pem").write_bytes(self._tls.ca_pem)
            self._hooks_server = SinkHTTPServer((self.host, self._requested_port), self, context)
            if self.https or not is_loopback(self.host):
                try:
                    self._control_server = SinkHTTPServer(("127.0.0.1", 0), self, None)
                except OSError:
                    # leave the sink as if never started: no dead address, no CA folder
                    self._hooks_server.server_close()
                    self._hooks_server = None
                    if self._ca_dir is not None:
                        shutil.rmtree(self._ca_dir, ignore_errors=True)
                        self._ca_dir = None
                    raise
            for name, server in self._servers():
                self._threads.append(server.serve_in_thread(f"gpsi-sink-{name}"))
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

    def _servers(self) -> list[tuple[str, SinkHTTPServer]]:
        servers = [("hooks", self._hooks_server), ("control", self._control_server)]
        return [(name, server) for name, server in servers if server is not None]

    def _require(self) -> SinkHTTPServer:
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
        return f"{scheme}://{url_host(self.host)}:{self.port}{HOOKS_PATH}"

    @property
    def control_url(self) -> str:
        """The control API's base URL, always plain HTTP on loopback."""
        server = self._control_server or self._require()
        host = str(server.server_address[0])
        if is_wildcard(host) or not is_loopback(host):
            host = "127.0.0.1"
        return f"http://{url_host(host)}:{server.server_address[1]}{CONTROL_PREFIX}"

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
