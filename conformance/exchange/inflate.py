"""Reading a compressed answer a bounded piece at a time, so its decompressed size is capped.

A target's answer may carry ``Content-Encoding: gzip`` or ``deflate``. Decompressing a whole
received chunk at once lets a small chunk of a deflate bomb (a thousandfold ratio) become
tens of MiB before any cap is checked; here every decompression step yields at most
:data:`PIECE` bytes, and the reader stops once ``limit`` decompressed bytes have come, so
what the kit holds stays near its cap whatever the ratio.

Encodings other than gzip and deflate (``identity``, and those no decoder here knows) pass
through unchanged, as httpx passes them; a stream that is not what its encoding says raises
:class:`httpx.DecodingError`, which the client reports as an undecodable body.
"""

from __future__ import annotations

import zlib
from collections.abc import Iterable, Iterator
from typing import Protocol

import httpx

__all__ = ["PIECE", "CappedBody", "capped_chunks", "decoded_chunks", "read_capped"]

PIECE = 64 * 1024
"""The most one decompression step yields."""


class CappedBody(Exception):
    """The decompressed body went past ``limit``; ``received`` decompressed bytes were read
    (one piece more than the limit at most)."""

    def __init__(self, limit: int, received: int) -> None:
        super().__init__(f"more than {limit} bytes once decompressed ({received} read)")
        self.limit = limit
        self.received = received


class _Stage(Protocol):
    def feed(self, data: bytes) -> Iterator[bytes]: ...

    def finish(self) -> Iterator[bytes]: ...


class _Inflater:
    """One zlib stream (gzip, zlib-wrapped or raw deflate), drained a piece at a time."""

    def __init__(self, wbits: int, *, raw_fallback: bool = False) -> None:
        self._wbits = wbits
        self._raw_fallback = raw_fallback  # "deflate" is zlib-wrapped or raw, in the wild
        self._started = False
        self._inflater = zlib.decompressobj(wbits)

    def feed(self, data: bytes) -> Iterator[bytes]:
        if not data:
            return
        try:
            yield from self._drain(data)
        except zlib.error as exc:
            if not (self._raw_fallback and not self._started):
                raise httpx.DecodingError(f"not a valid compressed stream ({exc})") from None
            self._raw_fallback = False
            self._inflater = zlib.decompressobj(-zlib.MAX_WBITS)
            yield from self.feed(data)

    def _drain(self, data: bytes) -> Iterator[bytes]:
        pending = data
        while True:
            out = self._inflater.decompress(pending, PIECE)
            if out:
                self._started = True
                yield out
            pending = self._inflater.unconsumed_tail
            # a full piece may leave output inside zlib even when no input is left
            if not pending and len(out) < PIECE:
                return

    def finish(self) -> Iterator[bytes]:
        try:
            yield from self._drain(b"")
            rest = self._inflater.flush(PIECE)
        except zlib.error as exc:
            raise httpx.DecodingError(f"not a valid compressed stream ({exc})") from None
        if rest:
            yield rest


class _Identity:
    def feed(self, data: bytes) -> Iterator[bytes]:
        for start in range(0, len(data), PIECE):
            yield data[start : start + PIECE]

    def finish(self) -> Iterator[bytes]:
        return iter(())


def _stage(name: str) -> _Stage:
    if name in ("gzip", "x-gzip"):
        return _Inflater(zlib.MAX_WBITS | 16)
    if name == "deflate":
        return _Inflater(zlib.MAX_WBITS, raw_fallback=True)
    return _Identity()


def _through(stages: list[_Stage], data: bytes, index: int = 0) -> Iterator[bytes]:
    if index == len(stages):
        yield data
        return
    for piece in stages[index].feed(data):
        yield from _through(stages, piece, index + 1)


def _finish(stages: list[_Stage], index: int = 0) -> Iterator[bytes]:
    if index == len(stages):
        return
    for piece in stages[index].finish():
        yield from _through(stages, piece, index + 1)
    yield from _finish(stages, index + 1)


def capped_chunks(
    raw: Iterable[bytes], content_encoding: str | None, limit: int | None = None
) -> Iterator[bytes]:
    """The decoded body of ``raw`` (the bytes as received) in pieces of at most
    :data:`PIECE` bytes; raises :class:`CappedBody` as soon as more than ``limit`` decoded
    bytes have come (without ``limit`` the caller counts, and stops reading when it has had
    enough: nothing is decompressed ahead of what it takes). ``content_encoding`` lists the
    codings in the order they were applied (``"deflate, gzip"``), so they are undone from
    the last."""
    names = [n.strip().lower() for n in (content_encoding or "").split(",") if n.strip()]
    stages = [_stage(name) for name in reversed(names)]
    size = 0
    for chunk in raw:
        for piece in _through(stages, chunk):
            size += len(piece)
            if limit is not None and size > limit:
                raise CappedBody(limit, size)
            yield piece
    for piece in _finish(stages):
        size += len(piece)
        if limit is not None and size > limit:
            raise CappedBody(limit, size)
        yield piece


def decoded_chunks(response: httpx.Response, limit: int | None = None) -> Iterator[bytes]:
    """The decoded body of a streamed ``response``, a piece at a time (capped at ``limit``
    decoded bytes when given): :func:`capped_chunks` over what the connection delivers."""
    return capped_chunks(response.iter_raw(), response.headers.get("content-encoding"), limit)


def read_capped(response: httpx.Response, limit: int) -> bytes:
    """The whole decoded body of a streamed ``response``; :class:`CappedBody` past ``limit``."""
    return b"".join(decoded_chunks(response, limit))
