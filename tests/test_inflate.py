"""The bounded decompression of answers (``conformance/exchange/inflate.py``)."""

from __future__ import annotations

import gzip
import zlib

import httpx
import pytest

from conformance.exchange.inflate import PIECE, CappedBody, capped_chunks

BODY = b'{"id": "Customer:1", "pad": "' + b"x" * 300_000 + b'"}'


def raw_deflate(data: bytes) -> bytes:
    packer = zlib.compressobj(9, zlib.DEFLATED, -zlib.MAX_WBITS)
    return packer.compress(data) + packer.flush()


def in_chunks(data: bytes, size: int = 1000) -> list[bytes]:
    return [data[i : i + size] for i in range(0, len(data), size)]


@pytest.mark.parametrize(
    ("encoding", "encoded"),
    [
        (None, BODY),
        ("identity", BODY),
        ("gzip", gzip.compress(BODY, mtime=0)),
        ("deflate", zlib.compress(BODY)),
        ("deflate", raw_deflate(BODY)),  # raw deflate, as some servers send it
        ("deflate, gzip", gzip.compress(zlib.compress(BODY), mtime=0)),
        ("br", BODY),  # a coding no decoder here knows passes through, as httpx passes it
    ],
    # ids that name the coding, the same in every xdist worker (bytes would be the id)
    ids=["none", "identity", "gzip", "deflate", "raw-deflate", "deflate-gzip", "br"],
)
def test_each_coding_is_undone_in_bounded_pieces(encoding, encoded):
    pieces = list(capped_chunks(in_chunks(encoded), encoding))
    assert b"".join(pieces) == BODY
    assert max(map(len, pieces)) <= PIECE


def test_a_bomb_stops_one_piece_past_the_limit():
    bomb = zlib.compress(b"\0" * (50 * 1024 * 1024))
    with pytest.raises(CappedBody) as stopped:
        for _ in capped_chunks([bomb], "deflate", limit=1024 * 1024):
            pass
    assert 1024 * 1024 < stopped.value.received <= 1024 * 1024 + PIECE


def test_a_broken_stream_is_a_decoding_error():
    with pytest.raises(httpx.DecodingError):
        list(capped_chunks([b"not gzip at all"], "gzip"))
