"""A total deadline per request: connect, send, headers and the whole body.

httpx's timeouts are per operation: a target that trickles one byte at a time restarts the
read timeout on every byte and holds a run forever. Here every socket operation of a
request gets at most the time left until the request's deadline, and none once it has
passed, so no request outlives its deadline, whatever the target does.
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
from httpcore._backends.sync import SyncBackend

__all__ = ["deadline", "deadline_transport", "default_ssl_context", "time_left"]

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
        self._backend = SyncBackend()

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


def deadline_transport(**kwargs: typing.Any) -> httpx.HTTPTransport:
    """An httpx transport whose sockets honour :func:`deadline`; it verifies TLS with the
    process's one default context unless ``verify`` says otherwise."""
    kwargs.setdefault("verify", default_ssl_context())
    transport = httpx.HTTPTransport(**kwargs)
    transport._pool._network_backend = _DeadlineBackend()
    return transport
