"""Reading an answer of the sandbox with a cap on its decompressed size.

The adapter reaches whatever base URL the profile names, so an answer may be hostile: a
deflate bomb of 1 MB inflates to 1 GB. The body is read from the connection as it arrived
and decompressed here a bounded piece at a time, so the adapter never holds more than its
cap however far the body would inflate. (The suite has its own reader: the two packages
never import each other.)
"""

from __future__ import annotations

import zlib
from collections.abc import Iterable, Iterator

__all__ = ["MAX_ANSWER_BYTES", "PIECE", "TooLarge", "UnreadableBody", "read_decoded"]

MAX_ANSWER_BYTES = 10 * 1024 * 1024
PIECE = 64 * 1024


class TooLarge(Exception):
    """The decoded answer went past the cap."""


class UnreadableBody(Exception):
    """The body is not what its Content-Encoding says."""


def _inflater(name: str) -> zlib._Decompress | None:
    if name in ("gzip", "x-gzip"):
        return zlib.decompressobj(zlib.MAX_WBITS | 16)
    if name == "deflate":
        return zlib.decompressobj(zlib.MAX_WBITS)
    return None  # identity, and codings the adapter cannot undo: read as they are


def _inflate(inflater: zlib._Decompress, data: bytes) -> Iterator[bytes]:
    pending = data
    while True:
        out = inflater.decompress(pending, PIECE)
        if out:
            yield out
        pending = inflater.unconsumed_tail
        if not pending and len(out) < PIECE:  # a full piece may leave output inside zlib
            return


def _pieces(raw: Iterable[bytes], encoding: str | None) -> Iterator[bytes]:
    names = [n.strip().lower() for n in (encoding or "").split(",") if n.strip()]
    inflaters = [i for i in map(_inflater, reversed(names)) if i is not None]
    if len(inflaters) > 1:
        raise UnreadableBody(f"Content-Encoding {encoding!r}: one coding at most is read")
    for chunk in raw:
        if not inflaters:
            yield chunk
            continue
        try:
            yield from _inflate(inflaters[0], chunk)
        except zlib.error as exc:
            raise UnreadableBody(f"not a valid {names[-1]} stream ({exc})") from None
    if inflaters:
        yield from _inflate(inflaters[0], b"")


def read_decoded(raw: Iterable[bytes], encoding: str | None, cap: int = MAX_ANSWER_BYTES) -> bytes:
    """The decoded body of ``raw`` (the bytes as received); :class:`TooLarge` as soon as more
    than ``cap`` decoded bytes have come, :class:`UnreadableBody` for a broken stream."""
    kept: list[bytes] = []
    size = 0
    for piece in _pieces(raw, encoding):
        size += len(piece)
        if size > cap:
            raise TooLarge(f"more than {cap} bytes once decoded (stopped reading at {size})")
        kept.append(piece)
    return b"".join(kept)
