"""Deliveries to ``http://`` endpoints without httpx's layers.

httpx's client cost about 0.6 ms of CPU per delivery (its request and response models,
httpcore's pool, anyio streams), a fifth of the sandbox's CPU in a conformance run. An
``http://`` endpoint (the sandbox accepts those only on loopback hosts) is posted to here
instead: the same bytes the httpx client sends (its Host, default headers and request
target), framed and parsed by h11, the HTTP/1.1 library under httpcore, on one kept-alive
connection per endpoint, reused on httpcore's terms. That is about a fifth of the CPU.
``https://`` endpoints, URLs with credentials, and every endpoint while the environment
names an HTTP proxy keep the httpx client (TLS, certificate stores, Basic auth, proxies).
"""

from __future__ import annotations

import asyncio
import functools
import time
from collections.abc import Mapping, Sequence
from typing import cast
from urllib.request import getproxies

import h11
import httpx

# httpcore's values: the largest response head it parses, and how long an idle
# connection is kept (httpx's default keep-alive expiry).
_MAX_HEAD_BYTES = 100 * 1024
_KEEPALIVE_S = 5.0
_MAX_IDLE = 20  # httpx's default max_keepalive_connections

Header = tuple[bytes, bytes]


@functools.lru_cache(maxsize=64)
def _target(url: str) -> httpx.URL:
    """``url`` parsed as the httpx client parses it: the same Host and request target."""
    return httpx.URL(url)


def environment_names_http_proxy() -> bool:
    """Whether httpx would route some ``http://`` URLs through a proxy (its trust_env)."""
    proxies = getproxies()
    return bool(proxies.get("http") or proxies.get("all"))


class _Connection(asyncio.Protocol):
    """One HTTP/1.1 connection: the bytes that arrive, handed to h11 on demand."""

    def __init__(self) -> None:
        self.h11 = h11.Connection(h11.CLIENT, max_incomplete_event_size=_MAX_HEAD_BYTES)
        self.idle_until = 0.0
        self._transport: asyncio.WriteTransport | None = None
        self._arrived: list[bytes] = []  # received, not yet read
        self._ended = False  # the server closed its side
        self._waiter = asyncio.Event()

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        # a stream transport (uvloop's does not derive from asyncio's classes)
        self._transport = cast(asyncio.WriteTransport, transport)

    def data_received(self, data: bytes) -> None:
        self._arrived.append(data)
        self._waiter.set()

    def eof_received(self) -> None:
        self._ended = True
        self._waiter.set()

    def connection_lost(self, exc: Exception | None) -> None:
        self.eof_received()

    def write(self, data: bytes) -> None:
        assert self._transport is not None
        self._transport.write(data)

    async def read(self) -> bytes:
        """The next bytes received; b"" once the server closed and all was read."""
        while not self._arrived and not self._ended:
            self._waiter.clear()
            await self._waiter.wait()
        return self._arrived.pop(0) if self._arrived else b""

    def reusable(self, now: float) -> bool:
        """Idle, not expired, and nothing arrived since the last response, not even the
        end: httpcore's test (a readable idle socket means the server is closing it)."""
        idle = self.h11.our_state is h11.IDLE
        return idle and not self._arrived and not self._ended and now < self.idle_until

    def close(self) -> None:
        if self._transport is not None:
            self._transport.close()


class PlainHttpPoster:
    """POSTs to ``http://`` URLs, keeping one idle connection per URL."""

    def __init__(self, default_headers: Sequence[Header], timeout_s: float) -> None:
        self._default_headers = list(default_headers)
        self._timeout_s = timeout_s
        self._idle: dict[str, _Connection] = {}  # oldest first

    @staticmethod
    def handles(url: str) -> bool:
        """Whether ``url`` is plain ``http://`` without credentials (which httpx would send
        as Basic auth)."""
        target = _target(url)
        return target.scheme == "http" and not target.userinfo

    async def post(self, url: str, body: bytes, headers: Mapping[str, str]) -> int:
        """The status the endpoint answered; ``OSError`` (timeouts included) or
        ``h11.ProtocolError`` when it did not answer."""
        target = _target(url)
        self._close_stale(time.monotonic())
        connection = self._idle.pop(url, None) or await self._connect(target)
        try:
            status = await self._exchange(connection, target, body, headers)
        except BaseException:
            connection.close()
            raise
        if connection.h11.our_state is h11.DONE and connection.h11.their_state is h11.DONE:
            connection.h11.start_next_cycle()
            connection.idle_until = time.monotonic() + _KEEPALIVE_S
            self._idle[url] = connection
            while len(self._idle) > _MAX_IDLE:
                self._idle.pop(next(iter(self._idle))).close()
        else:
            connection.close()
        return status

    def close(self) -> None:
        """Close the idle connections."""
        for connection in self._idle.values():
            connection.close()
        self._idle.clear()

    def _close_stale(self, now: float) -> None:
        for url in [url for url, c in self._idle.items() if not c.reusable(now)]:
            self._idle.pop(url).close()

    async def _connect(self, target: httpx.URL) -> _Connection:
        loop = asyncio.get_running_loop()
        async with asyncio.timeout(self._timeout_s):
            _, connection = await loop.create_connection(
                _Connection, target.raw_host.decode("ascii"), target.port or 80
            )
        return connection

    async def _exchange(
        self, connection: _Connection, target: httpx.URL, body: bytes, headers: Mapping[str, str]
    ) -> int:
        state = connection.h11
        wire_headers = [
            (b"Host", target.netloc),
            *self._default_headers,
            *((name.encode("ascii"), value.encode("ascii")) for name, value in headers.items()),
            (b"Content-Length", str(len(body)).encode("ascii")),
        ]
        request = h11.Request(method="POST", target=target.raw_path, headers=wire_headers)
        events = (request, h11.Data(data=body), h11.EndOfMessage())
        connection.write(b"".join(state.send(event) or b"" for event in events))
        status: int | None = None
        while True:
            event = state.next_event()
            if event is h11.NEED_DATA:
                async with asyncio.timeout(self._timeout_s):
                    data = await connection.read()
                if not data and state.their_state is h11.SEND_RESPONSE:
                    raise ConnectionResetError("server disconnected without sending a response")
                state.receive_data(data)
            elif isinstance(event, h11.Response) or (
                isinstance(event, h11.InformationalResponse) and event.status_code == 101
            ):
                status = event.status_code  # other 1xx answers are skipped, as httpcore does
            elif isinstance(event, h11.ConnectionClosed):
                raise ConnectionResetError("server closed the connection mid-response")
            elif isinstance(event, h11.EndOfMessage) or event is h11.PAUSED:  # PAUSED: a 101
                assert status is not None  # h11 yields the response before its end
                return status
