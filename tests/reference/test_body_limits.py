"""Body size limits on every route, and one client's large or slow body never stalls
another's request (issue 24; SANDBOX.md "Request bodies").

Over plain sockets: httpx refuses to send a body that disagrees with its headers, and these
tests must hold a body half sent while another client is served.
"""

from __future__ import annotations

import select
import socket
from collections.abc import Iterable, Iterator
from urllib.parse import urlsplit

import httpx
import pytest

from reference.kernel.request_body import JSON_LIMIT

from .hostile_corpus import Operation, operations, path_of
from .reference_helpers import RunningSandbox

API_OPERATIONS = [o for o in operations() if not o.hosted]
BOUNDARY = "b0undary"
ANSWER_TIMEOUT_S = 10.0  # a bound on a hung server, never waited out when all is well


class RawRequest:
    """One request over its own socket: the head now, the body in pieces when told."""

    def __init__(self, target: RunningSandbox, method: str, path: str, framing: str, kind: str):
        url = urlsplit(target.base_url)
        auth = httpx.BasicAuth(*target.credentials())._auth_header
        self.sock = socket.create_connection((url.hostname, url.port), timeout=ANSWER_TIMEOUT_S)
        self.sock.sendall(
            f"{method} {url.path}{path} HTTP/1.1\r\nHost: {url.netloc}\r\nAuthorization: {auth}"
            f"\r\nContent-Type: {kind}\r\n{framing}\r\n\r\n".encode()
        )

    def answered(self) -> bool:
        """Whether the server has begun an answer (or closed), without waiting."""
        return bool(select.select([self.sock], [], [], 0)[0])

    def send(self, pieces: Iterable[bytes]) -> None:
        """Send ``pieces``, stopping as soon as the server answers (it need not read on)."""
        for piece in pieces:
            if self.answered():
                return
            try:
                self.sock.sendall(piece)
            except OSError:
                return  # answered and closed while we were sending

    def answer(self) -> tuple[int, bytes]:
        """The status and body of the answer (read to its Content-Length)."""
        data = b""
        while b"\r\n\r\n" not in data:
            chunk = self.sock.recv(65536)
            assert chunk, f"connection closed without an answer: {data!r}"
            data += chunk
        head, _, body = data.partition(b"\r\n\r\n")
        lines = head.decode("latin-1").split("\r\n")
        length = next(
            int(line.split(":", 1)[1])
            for line in lines
            if line.lower().startswith("content-length")
        )
        while len(body) < length:
            chunk = self.sock.recv(65536)
            assert chunk, "connection closed mid-answer"
            body += chunk
        self.sock.close()
        return int(lines[0].split()[1]), body


def refused_for_size(status: int, body: bytes, field: str) -> bool:
    return status == 400 and f'"field":"{field}","constraint":"MAX_SIZE"'.encode() in body


def _field(operation: Operation) -> str:
    return "body" if operation.limit == JSON_LIMIT.max_bytes else "file"


def _kind(operation: Operation) -> str:
    multipart = operation.limit != JSON_LIMIT.max_bytes
    return f"multipart/form-data; boundary={BOUNDARY}" if multipart else "application/json"


@pytest.mark.parametrize("operation", API_OPERATIONS, ids=lambda o: f"{o.method} {o.template}")
def test_declared_length_over_the_limit_is_refused_unread(
    target: RunningSandbox, ids: dict[str, str], operation: Operation
) -> None:
    """Every route: a Content-Length over its limit is refused before a byte of the body
    arrives (none is sent: an answer proves the server did not wait for it)."""
    framing = f"Content-Length: {operation.limit + 1}"
    request = RawRequest(
        target, operation.method, path_of(operation.template, ids), framing, _kind(operation)
    )
    status, body = request.answer()
    assert refused_for_size(status, body, _field(operation)), (status, body[:300])


def _chunks(first: bytes, total: int, size: int = 64 * 1024) -> Iterator[bytes]:
    """A chunked body: ``first`` then zeros up to ``total`` bytes, never terminated."""
    yield b"%x\r\n%s\r\n" % (len(first), first)
    sent = len(first)
    while sent < total:
        yield b"%x\r\n%s\r\n" % (size, b" " * size)
        sent += size


def _form_head() -> bytes:
    return (
        f'--{BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="a.png"'
        "\r\nContent-Type: image/png\r\n\r\n"
    ).encode()


@pytest.mark.parametrize(
    "operation",
    [o for o in API_OPERATIONS if o.reads_body],
    ids=lambda o: f"{o.method} {o.template}",
)
def test_streamed_body_over_the_limit_is_cut_off(
    target: RunningSandbox, ids: dict[str, str], operation: Operation
) -> None:
    """Every route that reads a body: a chunked body without Content-Length is counted as
    it arrives and refused at the limit. It is never finished, so only a server that stops
    at the limit can answer."""
    first = _form_head() if operation.limit != JSON_LIMIT.max_bytes else b'{"name":"'
    request = RawRequest(
        target,
        operation.method,
        path_of(operation.template, ids),
        "Transfer-Encoding: chunked",
        _kind(operation),
    )
    request.send(_chunks(first, operation.limit + 256 * 1024))
    status, body = request.answer()
    assert refused_for_size(status, body, _field(operation)), (status, body[:300])
    with target.client() as client:
        assert client.get("/config").status_code == 200


def _served_meanwhile(target: RunningSandbox, slow: RawRequest) -> None:
    """Another client's requests complete while ``slow`` is still mid-body."""
    with target.client() as other:
        assert other.get("/config").status_code == 200
        made = other.post("/customers", json={"customerType": "INDIVIDUAL", "fullName": "Bo Li"})
        assert made.status_code == 201, made.text
    assert not slow.answered(), "the slow upload was answered before its body was complete"


def test_half_sent_json_body_does_not_stall_others(target: RunningSandbox) -> None:
    """A JSON body near the limit, half sent: others are served; then it completes."""
    filler = b"x" * (JSON_LIMIT.max_bytes - 200)
    body = b'{"customerType":"INDIVIDUAL","fullName":"Ann Lee","sourceOfFunds":"%s"}' % filler
    slow = RawRequest(
        target, "POST", "/customers", f"Content-Length: {len(body)}", "application/json"
    )
    slow.send([body[: len(body) // 2]])
    _served_meanwhile(target, slow)
    slow.send([body[len(body) // 2 :]])
    status, answer = slow.answer()
    assert status == 201, answer[:300]


def test_large_upload_in_progress_does_not_stall_others(target: RunningSandbox) -> None:
    """A 10 MB document upload, 6 MB sent and paused; and a chunked JSON stream going past
    the limit: others are served meanwhile, and each slow request gets its answer."""
    upload = RawRequest(
        target,
        "POST",
        "/documents",
        "Transfer-Encoding: chunked",
        f"multipart/form-data; boundary={BOUNDARY}",
    )
    pieces = _chunks(_form_head(), 10 * 1024 * 1024)
    upload.send(piece for _, piece in zip(range(96), pieces, strict=False))  # about 6 MB
    stream = RawRequest(
        target, "POST", "/customers", "Transfer-Encoding: chunked", "application/json"
    )
    json_pieces = _chunks(b'{"fullName":"', JSON_LIMIT.max_bytes * 4)
    stream.send(piece for _, piece in zip(range(8), json_pieces, strict=False))  # 512 KiB
    _served_meanwhile(target, upload)
    assert not stream.answered()
    stream.send(json_pieces)
    status, answer = stream.answer()
    assert refused_for_size(status, answer, "body"), answer[:300]
    upload.send([b"5\r\nxxxxx\r\n", b"0\r\n\r\n"])  # the end of the chunked body
    status, answer = upload.answer()
    assert status == 400, answer[:300]  # a form whose file part never closes
