"""The safety net (``reference.kernel.errors.UnexpectedErrors``): a bug in a handler answers
the 500 envelope and the connection stays usable (issue 24). The corpus of
test_hostile_requests.py holds that no request reaches it; this holds what it does if one
does, over real HTTP, with a route that fails on purpose behind the shipped middleware."""

from __future__ import annotations

import json
import socket
import threading
from collections.abc import Iterator

import pytest
import uvicorn
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from reference.kernel.errors import EXCEPTION_HANDLERS, UnexpectedErrors
from reference.kernel.settings import ServerSettings


def _broken(request: Request) -> Response:
    raise RuntimeError("a bug")


def _fine(request: Request) -> Response:
    return JSONResponse({"ok": True})


@pytest.fixture
def port() -> Iterator[int]:
    app = Starlette(
        routes=[Route("/broken", _broken), Route("/fine", _fine)],
        exception_handlers=EXCEPTION_HANDLERS,
        middleware=[Middleware(UnexpectedErrors, settings=ServerSettings())],
    )
    server = uvicorn.Server(uvicorn.Config(app, port=0, log_level="critical", lifespan="off"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    started = threading.Event()
    while not started.wait(0.01):  # waits on the server's own flag, not a fixed time
        if server.started:
            started.set()
        assert thread.is_alive(), "the test server did not start"
    yield server.servers[0].sockets[0].getsockname()[1]
    server.should_exit = True
    thread.join(10)


def _exchange(sock: socket.socket, path: str) -> tuple[int, dict[str, object]]:
    sock.sendall(f"GET {path} HTTP/1.1\r\nHost: test\r\n\r\n".encode())
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = sock.recv(65536)
        assert chunk, f"closed without an answer to {path}"
        data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    length = next(
        int(v) for k, _, v in (x.partition(":") for x in lines) if k.lower() == "content-length"
    )
    while len(body) < length:
        chunk = sock.recv(65536)
        assert chunk, f"closed in the middle of the answer to {path}"
        body += chunk
    return int(lines[0].split()[1]), json.loads(body)


def test_a_bug_answers_the_envelope_and_keeps_the_connection(port: int) -> None:
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        status, body = _exchange(sock, "/broken")
        assert status == 500
        assert body == {
            "status": 500,
            "code": "INTERNAL_ERROR",
            "message": "internal error in the reference sandbox",
        }
        assert _exchange(sock, "/fine") == (200, {"ok": True})  # the same connection
