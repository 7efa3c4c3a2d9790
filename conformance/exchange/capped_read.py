"""The capped read: an answer's body read in full, but never past the kit's size cap.

One layer of the client's transport stack (``client.py`` composes it): it reads the body
below the deadline, so a body that trickles is cut at the request's deadline, and one that
grows past ``max_bytes`` (as sent, or once its Content-Encoding is undone) is refused with
:class:`TooLarge` instead of filling the memory. The layers above get the body already read
and decoded: the client takes it with ``iter_raw`` (no second decoding).
"""

from __future__ import annotations

import httpx

from conformance.exchange.inflate import decoded_chunks

__all__ = ["MAX_RESPONSE_BYTES", "CappedReadTransport", "TooLarge", "read_capped"]

MAX_RESPONSE_BYTES = 10 * 1024 * 1024


class TooLarge(Exception):
    """The answer's body went past the size cap; ``received`` bytes were read."""

    def __init__(self, response: httpx.Response, received: int, max_bytes: int) -> None:
        super().__init__(f"{received} bytes")
        self.response = response
        self.received = received
        self.max_bytes = max_bytes


def read_capped(response: httpx.Response, max_bytes: int) -> bytes:
    """The decoded body of ``response``; :class:`TooLarge` past ``max_bytes`` (unread when
    its Content-Length already says so)."""
    declared = response.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > max_bytes:
        raise TooLarge(response, 0, max_bytes)  # not read at all
    try:  # an answer made in memory (a transport of a test, say) was read when it was made
        already = response.content
    except httpx.ResponseNotRead:
        already = None
    if already is not None:
        if len(already) > max_bytes:
            raise TooLarge(response, len(already), max_bytes)
        return already
    chunks: list[bytes] = []
    size = 0
    for chunk in decoded_chunks(response):  # a bounded piece at a time, bombs too
        size += len(chunk)
        if size > max_bytes:
            raise TooLarge(response, size, max_bytes)
        chunks.append(chunk)
    return b"".join(chunks)


class CappedReadTransport(httpx.BaseTransport):
    """Answers with their body read by :func:`read_capped` (and the connection released)."""

    def __init__(self, inner: httpx.BaseTransport, max_bytes: int) -> None:
        self._inner = inner
        self.max_bytes = max_bytes

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        response = self._inner.handle_request(request)
        try:
            body = read_capped(response, self.max_bytes)
        finally:
            response.close()
        return httpx.Response(
            response.status_code,
            headers=response.headers,
            stream=httpx.ByteStream(body),
            extensions=response.extensions,
        )

    def close(self) -> None:
        self._inner.close()
