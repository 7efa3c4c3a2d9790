"""What an uploaded file really is: its type from the magic bytes, and an image's size read
from the PNG ``IHDR`` chunk or a JPEG ``SOFn`` marker (no imaging library needed).
"""

from __future__ import annotations

import struct

PDF = "application/pdf"
JPEG = "image/jpeg"
PNG = "image/png"

_PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
_MAGIC = ((b"%PDF-", PDF), (b"\xff\xd8\xff", JPEG), (_PNG_SIGNATURE, PNG))
# Start-of-frame markers carry the frame size; C4 (DHT), C8 (JPG) and CC (DAC) share the
# range but are not frames.
_SOF_MARKERS = frozenset(range(0xC0, 0xD0)) - {0xC4, 0xC8, 0xCC}
# Markers without a length field: TEM and the restart markers.
_STANDALONE = frozenset({0x01, *range(0xD0, 0xD8)})
_SOS = 0xDA  # start of scan: entropy-coded data follows, no frame header after it
_EOI = 0xD9


def sniff(data: bytes) -> str | None:
    """The media type the leading bytes announce (PDF, JPEG or PNG), or None."""
    for magic, media_type in _MAGIC:
        if data.startswith(magic):
            return media_type
    return None


def dimensions(data: bytes, media_type: str) -> tuple[int, int] | None:
    """``(width, height)`` of a PNG or JPEG, or None when the header cannot be read."""
    if media_type == PNG:
        return png_dimensions(data)
    if media_type == JPEG:
        return jpeg_dimensions(data)
    return None


def png_dimensions(data: bytes) -> tuple[int, int] | None:
    """From ``IHDR``, which the PNG specification requires to be the first chunk."""
    if len(data) < 24 or not data.startswith(_PNG_SIGNATURE) or data[12:16] != b"IHDR":
        return None
    width, height = struct.unpack(">II", data[16:24])
    return width, height


def jpeg_dimensions(data: bytes) -> tuple[int, int] | None:
    """From the first ``SOFn`` segment: walk the marker segments after ``SOI``."""
    if not data.startswith(b"\xff\xd8"):
        return None
    offset = 2
    while offset + 1 < len(data):
        if data[offset] != 0xFF:
            return None  # segments must start with a marker
        marker = data[offset + 1]
        if marker == 0xFF:  # fill byte before a marker
            offset += 1
            continue
        offset += 2
        if marker in _STANDALONE:
            continue
        if marker in (_SOS, _EOI) or offset + 2 > len(data):
            return None
        (length,) = struct.unpack(">H", data[offset : offset + 2])
        if length < 2:
            return None
        if marker in _SOF_MARKERS:
            if offset + 7 > len(data):
                return None
            height, width = struct.unpack(">HH", data[offset + 3 : offset + 7])
            return width, height
        offset += length
    return None
