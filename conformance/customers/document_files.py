"""The files the suite uploads as documents (§2 Document, §8 Limits).

The files live in ``fixtures/documents`` (see its README); a :class:`DocumentFile` is one
file with the name and media type a multipart upload declares. Oversized files are built in
memory from the shipped PDF, so the kit never ships megabytes of padding.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

from conformance.ground.datafiles import fixtures_dir

__all__ = [
    "MEBIBYTE",
    "DocumentFile",
    "identity_photo",
    "pdf_document",
    "pdf_of_size",
    "unreadable_photo",
    "unsupported_files",
]

MEBIBYTE = 1024 * 1024

_MEDIA_TYPES = {
    ".pdf": "application/pdf",
    ".png": "image/png",
    ".jpg": "image/jpeg",
    ".gif": "image/gif",
    ".txt": "text/plain",
}


@dataclass(frozen=True, slots=True)
class DocumentFile:
    """One file to upload: its name, bytes and declared media type."""

    name: str
    content: bytes
    content_type: str

    def __repr__(self) -> str:  # never print megabytes in a failure message
        return f"DocumentFile({self.name!r}, {len(self.content)} bytes, {self.content_type!r})"

    def as_multipart(self) -> tuple[str, bytes, str]:
        """The ``(filename, content, content_type)`` triple of a multipart file part."""
        return self.name, self.content, self.content_type


@cache
def _load(name: str) -> DocumentFile:
    path = fixtures_dir() / "documents" / name
    return DocumentFile(name, path.read_bytes(), _MEDIA_TYPES[path.suffix])


def pdf_document() -> DocumentFile:
    """A small valid PDF (a PDF is not a photo: no quality check applies to it)."""
    return _load("document.pdf")


def identity_photo(kind: str = "png") -> DocumentFile:
    """A clear colour photo of a specimen card, four corners in frame (``png`` or ``jpeg``)."""
    return _load("identity-card.png" if kind == "png" else "identity-card.jpg")


def unreadable_photo(kind: str = "png") -> DocumentFile:
    """A tiny, flat grey, blurred photo: no corners in frame, no focus, no colour."""
    return _load("unreadable-photo.png" if kind == "png" else "unreadable-photo.jpg")


def unsupported_files() -> tuple[DocumentFile, ...]:
    """Files of media types the interface does not allow (only PDF, JPEG and PNG are)."""
    text = DocumentFile(
        "statement.txt", b"Certificate of incorporation (plain text)\n", "text/plain"
    )
    return (_load("identity-card.gif"), text)


def pdf_of_size(size: int) -> DocumentFile:
    """The shipped PDF padded after its end marker to exactly ``size`` bytes."""
    base = pdf_document().content
    if size < len(base):
        raise ValueError(f"pdf_of_size: {size} is smaller than the base PDF ({len(base)} bytes)")
    padding = size - len(base)
    content = base + (b"%" + b" " * (padding - 2) + b"\n" if padding >= 2 else b"\n" * padding)
    return DocumentFile(f"padded-{size}.pdf", content, "application/pdf")
