"""The webhook worker's poster for ``http://`` endpoints (reference/webhooks/plain_http.py):
the bytes httpx would send, answers read to their end whatever their framing, and a
kept-alive connection reused only while the server keeps it."""

from __future__ import annotations

import asyncio
import socket
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

import httpx
import pytest

from reference.webhooks.plain_http import PlainHttpPoster, environment_names_http_proxy

OK = b"HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n"
HEADERS = {"Content-Type": "application/json", "X-Service-Signature": "c2lnbmF0dXJl"}
BODY = b'{"id":"Webhook:1","type":"TEST"}'


@dataclass
class ScriptedServer:
    """A loopback server that records each request's bytes and answers from a script.

    ``answers`` are sent in order, one per request; after an answer in ``close_after`` (by
    index) the server closes that connection.
    """

    answers: list[bytes]
    close_after: set[int] = field(default_factory=set)
    requests: list[bytes] = field(default_factory=list)
    connections: int = 0

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.connections += 1
        while True:
            try:
                head = await reader.readuntil(b"\r\n\r\n")
            except asyncio.IncompleteReadError:
                break
            length = next(
                int(line.split(b":", 1)[1])
                for line in head.split(b"\r\n")
                if line.lower().startswith(b"content-length:")
            )
            index = len(self.requests)
            self.requests.append(head + await reader.readexactly(length))
            writer.write(self.answers[index])
            await writer.drain()
            if index in self.close_after:
                break
        writer.close()

    async def run(self, test: Callable[[str], Awaitable[None]]) -> None:
        server = await asyncio.start_server(self._serve, "127.0.0.1", 0)
        port = server.sockets[0].getsockname()[1]
        async with server:
            await test(f"http://127.0.0.1:{port}/hooks?x=1")


def poster(timeout_s: float = 5.0) -> PlainHttpPoster:
    return PlainHttpPoster(httpx.AsyncClient().headers.raw, timeout_s)


async def until(condition: Callable[[], bool]) -> None:
    """Wait for ``condition`` while the loop runs, up to a generous deadline."""
    deadline = time.monotonic() + 10
    while not condition():
        assert time.monotonic() < deadline, "condition not reached"
        await asyncio.sleep(0.001)


def test_the_request_on_the_wire_is_the_one_the_httpx_client_sends() -> None:
    server = ScriptedServer([OK, OK])

    async def test(url: str) -> None:
        assert await poster().post(url, BODY, HEADERS) == 200
        async with httpx.AsyncClient() as client:
            await client.post(url, content=BODY, headers=HEADERS)

    asyncio.run(server.run(test))
    plain, by_httpx = server.requests
    assert plain == by_httpx
    assert plain.startswith(b"POST /hooks?x=1 HTTP/1.1\r\n") and plain.endswith(BODY)


def test_a_kept_alive_connection_carries_the_next_delivery() -> None:
    chunked = b"HTTP/1.1 201 Created\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n"
    server = ScriptedServer([OK, chunked, OK])

    async def test(url: str) -> None:
        sender = poster()
        assert [await sender.post(url, BODY, HEADERS) for _ in range(3)] == [200, 201, 200]

    asyncio.run(server.run(test))
    assert server.connections == 1


def test_an_answer_ended_by_closing_is_read_and_the_next_delivery_reconnects() -> None:
    closing = b"HTTP/1.0 202 Accepted\r\n\r\nuntil the end"
    server = ScriptedServer([closing, OK], close_after={0})

    async def test(url: str) -> None:
        sender = poster()
        assert await sender.post(url, BODY, HEADERS) == 202
        assert await sender.post(url, BODY, HEADERS) == 200

    asyncio.run(server.run(test))
    assert server.connections == 2


def test_a_connection_the_server_closed_while_idle_is_not_reused() -> None:
    server = ScriptedServer([OK, OK], close_after={0})  # closes without saying so

    async def test(url: str) -> None:
        sender = poster()
        assert await sender.post(url, BODY, HEADERS) == 200
        idle = sender._idle[url]
        await until(lambda: not idle.reusable(time.monotonic()))
        assert await sender.post(url, BODY, HEADERS) == 200

    asyncio.run(server.run(test))
    assert server.connections == 2


def test_informational_answers_are_skipped() -> None:
    server = ScriptedServer([b"HTTP/1.1 100 Continue\r\n\r\n" + OK.replace(b"200 OK", b"204 No")])

    async def test(url: str) -> None:
        assert await poster().post(url, BODY, HEADERS) == 204

    asyncio.run(server.run(test))


def test_a_server_that_never_answers_times_out() -> None:
    server = ScriptedServer([b""])

    async def test(url: str) -> None:
        with pytest.raises(TimeoutError):
            await poster(timeout_s=0.05).post(url, BODY, HEADERS)

    asyncio.run(server.run(test))


def test_a_refused_connection_is_an_os_error() -> None:
    with socket.socket() as unused:
        unused.bind(("127.0.0.1", 0))
        port = unused.getsockname()[1]
    with pytest.raises(OSError):
        asyncio.run(poster().post(f"http://127.0.0.1:{port}/", BODY, HEADERS))


def test_only_plain_http_without_credentials_is_handled() -> None:
    assert PlainHttpPoster.handles("http://127.0.0.1:8080/hooks")
    assert not PlainHttpPoster.handles("https://127.0.0.1:8080/hooks")
    assert not PlainHttpPoster.handles("http://user:secret@127.0.0.1:8080/hooks")


def test_a_proxy_in_the_environment_is_noticed(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("http_proxy", "HTTP_PROXY", "all_proxy", "ALL_PROXY"):
        monkeypatch.delenv(name, raising=False)
    assert not environment_names_http_proxy()
    monkeypatch.setenv("HTTP_PROXY", "http://proxy.invalid:3128")
    assert environment_names_http_proxy()
