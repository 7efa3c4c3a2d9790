"""The sink's listening sockets: a threading HTTP server with per-connection TLS.

A :class:`SinkHTTPServer` accepts connections for one
:class:`~conformance.webhooks.sink.server.SinkServer` and hands each to a
:class:`~conformance.webhooks.sink._handler.SinkRequestHandler` in its own daemon thread; the accept
loop itself runs in a daemon thread of its own (:meth:`SinkHTTPServer.serve_in_thread`), so
a sink never keeps the test process alive.
"""

from __future__ import annotations

import logging
import socket
import socketserver
import ssl
import sys
import threading
from http.server import ThreadingHTTPServer
from typing import TYPE_CHECKING, Any

from ._handler import SOCKET_TIMEOUT_S, SinkRequestHandler

if TYPE_CHECKING:
    from .server import SinkServer

__all__ = ["SinkHTTPServer"]

# Named after the receiver module, where these records came from before the split, so
# logging configuration aimed at the sink keeps catching them.
logger = logging.getLogger("conformance.webhooks.sink.server")

_POLL_INTERVAL_S = 0.02  # how soon stop() is noticed: the run waits on it at its end


class SinkHTTPServer(ThreadingHTTPServer):
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
        super().__init__(address, SinkRequestHandler)

    def serve_in_thread(self, name: str) -> threading.Thread:
        """Start the accept loop in a daemon thread called ``name`` and return the thread."""
        thread = threading.Thread(
            target=self.serve_forever,
            kwargs={"poll_interval": _POLL_INTERVAL_S},
            name=name,
            daemon=True,
        )
        thread.start()
        return thread

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
        request.settimeout(SOCKET_TIMEOUT_S)
        tls = self.ssl_context.wrap_socket(request, server_side=True)
        try:
            SinkRequestHandler(tls, client_address, self)
        finally:
            tls.close()

    def handle_error(self, request: Any, client_address: Any) -> None:
        # Connection-level failures (TLS handshakes with clients that do not trust the CA,
        # resets) are the client's business, not sink errors.
        logger.debug(
            "webhook sink: connection from %s ended with %r", client_address, sys.exc_info()[1]
        )
