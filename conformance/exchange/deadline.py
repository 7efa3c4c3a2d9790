"""A total deadline per request: connect, send, headers and the whole body.

httpx's timeouts are per operation: a target that trickles one byte at a time restarts the
read timeout on every byte and holds a run forever. Here every socket operation of a
request gets at most the time left until the request's deadline, and none once it has
passed, so no request outlives its deadline, whatever the target does.

Two transports of the client's stack live here (``client.py`` composes them): the bottom
one, :class:`NetworkTransport`, speaks HTTP/1.1 over httpcore's public connection pool with
a network backend whose sockets honour the deadline; :class:`DeadlineTransport` opens the
deadline around everything below it (a ``Retry-After`` resend and the capped read too).
"""

from __future__ import annotations

import functools
import ssl
import threading
import time
import typing
from collections.abc import Iterator
from contextlib import contextmanager

import httpcore
import httpx

__all__ = [
    "SENT_AT",
    "DeadlineTransport",
    "NetworkTransport",
    "deadline",
    "deadline_transport",
    "default_ssl_context",
    "time_left",
]

# The request extension the deadline layer stamps with the monotonic time the request was
# sent at (after any --rate-limit wait): the exchange's elapsed time and the ledger read it.
SENT_AT = "conformance.sent_at"

_local = threading.local()


@contextmanager
def deadline(seconds: float) -> Iterator[None]:
    """Every socket operation in this thread gets at most ``seconds`` in total."""
    previous = getattr(_local, "deadline", None)
    _local.deadline = time.monotonic() + seconds
    try:
        yield
    finally:
        _local.deadline = previous


@functools.cache
def default_ssl_context() -> ssl.SSLContext:
    """httpx's default verifying context, built once per process: building one reads the
    whole CA bundle (20 ms of CPU), and a run makes a client per platform and process."""
    return httpx.create_ssl_context()


def time_left() -> float | None:
    """Seconds left before this thread's request deadline; None outside a deadline."""
    end: float | None = getattr(_local, "deadline", None)
    return None if end is None else end - time.monotonic()


def _remaining(timeout: float | None, error: type[Exception]) -> float | None:
    end: float | None = getattr(_local, "deadline", None)
    if end is None:
        return timeout
    left = end - time.monotonic()
    if left <= 0:
        raise error("the request's total deadline passed")
    return left if timeout is None else min(timeout, left)


class _DeadlineStream(httpcore.NetworkStream):
    def __init__(self, stream: httpcore.NetworkStream) -> None:
        self._stream = stream

    def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        return self._stream.read(max_bytes, _remaining(timeout, httpcore.ReadTimeout))

    def write(self, buffer: bytes, timeout: float | None = None) -> None:
        self._stream.write(buffer, _remaining(timeout, httpcore.WriteTimeout))

    def close(self) -> None:
        self._stream.close()

    def start_tls(
        self,
        ssl_context: typing.Any,
        server_hostname: str | None = None,
        timeout: float | None = None,
    ) -> httpcore.NetworkStream:
        left = _remaining(timeout, httpcore.ConnectTimeout)
        return _DeadlineStream(self._stream.start_tls(ssl_context, server_hostname, left))

    def get_extra_info(self, info: str) -> typing.Any:
        return self._stream.get_extra_info(info)


class _DeadlineBackend(httpcore.NetworkBackend):
    def __init__(self) -> None:
        self._backend = httpcore.SyncBackend()

    def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: typing.Iterable[typing.Any] | None = None,
    ) -> httpcore.NetworkStream:
        left = _remaining(timeout, httpcore.ConnectTimeout)
        stream = self._backend.connect_tcp(host, port, left, local_address, socket_options)
        return _DeadlineStream(stream)

    def connect_unix_socket(
        self,
        path: str,
        timeout: float | None = None,
        socket_options: typing.Iterable[typing.Any] | None = None,
    ) -> httpcore.NetworkStream:
        left = _remaining(timeout, httpcore.ConnectTimeout)
        return _DeadlineStream(self._backend.connect_unix_socket(path, left, socket_options))

    def sleep(self, seconds: float) -> None:
        self._backend.sleep(seconds)


# httpcore's errors by name: httpx has an error of the same name for each of them
_CORE_ERRORS = (
    httpcore.TimeoutException,
    httpcore.NetworkError,
    httpcore.ProtocolError,
    httpcore.ProxyError,
    httpcore.UnsupportedProtocol,
)


@contextmanager
def _as_httpx_errors(request: httpx.Request) -> Iterator[None]:
    """Raise httpcore's errors as httpx's (the client and the layers above know those)."""
    try:
        yield
    except _CORE_ERRORS as exc:
        for kind in type(exc).__mro__:
            mapped = getattr(httpx, kind.__name__, None)
            if isinstance(mapped, type) and issubclass(mapped, httpx.TransportError):
                raise mapped(str(exc), request=request) from exc
        raise httpx.TransportError(str(exc), request=request) from exc


class _Body(httpx.SyncByteStream):
    """An answer's body as httpcore streams it, with httpx's errors."""

    def __init__(self, stream: typing.Iterable[bytes], request: httpx.Request) -> None:
        self._stream = stream
        self._request = request

    def __iter__(self) -> Iterator[bytes]:
        with _as_httpx_errors(self._request):
            yield from self._stream

    def close(self) -> None:
        close = getattr(self._stream, "close", None)
        if close is not None:
            close()


class NetworkTransport(httpx.BaseTransport):
    """The bottom of the stack: HTTP/1.1 over sockets that honour :func:`deadline`, with TLS
    verified by ``verify`` (the process's one default context unless given)."""

    def __init__(self, verify: ssl.SSLContext | None = None) -> None:
        self._pool = httpcore.ConnectionPool(
            ssl_context=verify or default_ssl_context(),
            max_connections=100,
            max_keepalive_connections=20,
            keepalive_expiry=5.0,
            network_backend=_DeadlineBackend(),
        )

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        assert isinstance(request.stream, typing.Iterable)
        core = httpcore.Request(
            method=request.method,
            url=httpcore.URL(
                scheme=request.url.raw_scheme,
                host=request.url.raw_host,
                port=request.url.port,
                target=request.url.raw_path,
            ),
            headers=request.headers.raw,
            content=request.stream,
            extensions=request.extensions,
        )
        with _as_httpx_errors(request):
            answer = self._pool.handle_request(core)
        assert isinstance(answer.stream, typing.Iterable)
        return httpx.Response(
            answer.status,
            headers=answer.headers,
            stream=_Body(answer.stream, request),
            extensions=answer.extensions,
        )

    def close(self) -> None:
        self._pool.close()


class DeadlineTransport(httpx.BaseTransport):
    """Everything below it, for one request, within ``seconds`` in total; it stamps
    :data:`SENT_AT` on the request."""

    def __init__(self, inner: httpx.BaseTransport, seconds: float) -> None:
        self._inner = inner
        self.seconds = seconds

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        request.extensions[SENT_AT] = time.monotonic()
        with deadline(self.seconds):
            return self._inner.handle_request(request)

    def close(self) -> None:
        self._inner.close()


def deadline_transport(verify: ssl.SSLContext | None = None) -> NetworkTransport:
    """The network transport (sockets that honour :func:`deadline`), verifying TLS with
    ``verify`` or the process's one default context."""
    return NetworkTransport(verify)
