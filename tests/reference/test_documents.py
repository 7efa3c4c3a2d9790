"""``POST /documents``: multipart fields, types, sides, the 10 MB cap, the quality check,
and the image header readers."""

from __future__ import annotations

import re
import socket
from collections.abc import Iterator
from urllib.parse import urlsplit

import httpx
import pytest

from reference.customers import images
from reference.customers.documents import MAX_FILE_BYTES

from .customer_helpers import (
    PDF,
    business,
    constraints,
    created,
    individual,
    jpeg,
    missing_records,
    owner_body,
    png,
    upload,
)
from .reference_helpers import RunningSandbox


@pytest.fixture
def holder(client: httpx.Client) -> str:
    return str(created(client.post("/customers", json=individual()))["id"])


def test_passport_upload(client: httpx.Client, holder: str) -> None:
    document = created(upload(client, holder, content=png(800, 600), file_name="p.png"))
    assert re.fullmatch(r"Document:[0-9a-f-]{36}", document["id"])
    assert document["documentHolder"] == holder
    assert document["documentType"] == "PASSPORT" and "side" not in document
    assert document["country"] == "US"
    assert document["fileName"] == "p.png" and document["contentType"] == "image/png"
    assert document["size"] == len(png(800, 600)) and document["createdAt"].endswith("Z")


def test_every_document_type(client: httpx.Client) -> None:
    firm = created(client.post("/customers", json=business()))
    owner = created(client.post("/beneficial-owners", json=owner_body(firm["id"])))
    for kind in ("CERTIFICATE_OF_INCORPORATION", "ARTICLES_OF_ASSOCIATION", "SHAREHOLDER_REGISTER"):
        pdf = upload(client, firm["id"], kind, content=PDF, content_type="application/pdf")
        assert pdf.status_code == 201, pdf.text
    for kind in ("PROOF_OF_ADDRESS", "UTILITY_BILL", "BANK_STATEMENT"):
        assert (
            upload(client, owner["id"], kind, content=jpeg(), content_type="image/jpeg").status_code
            == 201
        )
    for kind in ("DRIVERS_LICENSE", "NATIONAL_ID"):
        for side in ("FRONT", "BACK"):
            assert upload(client, owner["id"], kind, side=side).status_code == 201


def test_unnamed_types_are_proof_of_address_or_business_documents(
    client: httpx.Client, holder: str
) -> None:
    """§2 Document: "other types for proof of address and business documents", unnamed: any
    type is taken, held to no identity rule (no number, authority or side needed)."""
    for kind in ("ELECTRICITY_BILL", "ARTICLES_OF_INCORPORATION", "TAX_RETURN", "SELFIE"):
        document = created(
            upload(client, holder, kind, content=PDF, content_type="application/pdf")
        )
        assert document["documentType"] == kind
    assert upload(client, holder, "TAX_RETURN", side="FRONT").status_code == 201
    assert constraints(upload(client, holder, "TAX_RETURN", side="LEFT")) == {"side": "ENUM"}


def test_form_rules_all_at_once(client: httpx.Client, holder: str) -> None:
    response = client.post(
        "/documents",
        data={"documentHolder": holder, "documentType": "DRIVERS_LICENSE", "country": "usa"},
        files={"file": ("x.png", png(), "image/png")},
    )
    assert constraints(response) == {
        "side": "REQUIRED",
        "documentNumber": "REQUIRED",
        "issuingAuthority": "REQUIRED",
        "country": "ISO_3166",
    }
    assert constraints(upload(client, holder, "PASSPORT", side="FRONT")) == {"side": "NOT_ALLOWED"}
    assert constraints(upload(client, holder, "NATIONAL_ID", side="LEFT")) == {"side": "ENUM"}
    assert constraints(upload(client, holder, " ")) == {"documentType": "MIN_LENGTH"}
    unknown = "Customer:00000000-0000-4000-8000-000000000000"
    assert missing_records(upload(client, unknown)) == {"documentHolder": "UNKNOWN_HOLDER"}
    response = client.post("/documents", data={"documentType": "PASSPORT"}, files={"x": ("a", b"")})
    assert constraints(response) == {
        "documentHolder": "REQUIRED",
        "documentNumber": "REQUIRED",
        "issuingAuthority": "REQUIRED",
        "file": "REQUIRED",
    }


def test_holders_are_per_platform(second_client: httpx.Client, holder: str) -> None:
    assert missing_records(upload(second_client, holder)) == {"documentHolder": "UNKNOWN_HOLDER"}


@pytest.mark.parametrize(
    ("content", "content_type"),
    [
        (b"plain text", "text/plain"),
        (png(), "image/jpeg"),  # declared type and magic bytes disagree
        (PDF, "image/png"),
        (b"", "application/pdf"),
        (b"\x89PNG\r\n\x1a\n" + b"\x00" * 8, "image/png"),  # a PNG with no readable IHDR
    ],
)
def test_file_types(client: httpx.Client, holder: str, content: bytes, content_type: str) -> None:
    response = upload(client, holder, content=content, content_type=content_type)
    assert constraints(response) == {"file": "UNSUPPORTED_MEDIA_TYPE"}


def test_not_multipart(client: httpx.Client) -> None:
    assert constraints(client.post("/documents", json={})) == {"body": "MULTIPART"}


def test_file_just_over_the_cap(client: httpx.Client, holder: str) -> None:
    content = png() + b"\x00" * (MAX_FILE_BYTES + 1 - len(png()))
    assert constraints(upload(client, holder, content=content)) == {"file": "MAX_SIZE"}
    content = content[:-1]  # exactly 10 MB is allowed
    assert upload(client, holder, content=content).status_code == 201


def raw_upload(sandbox: RunningSandbox, holder: str, framing: str, body: Iterator[bytes]) -> bytes:
    """POST /documents over a plain socket (httpx refuses to send a body that disagrees with
    its headers); ``framing`` is the Content-Length or Transfer-Encoding header line.
    Returns the raw answer."""
    url = urlsplit(sandbox.base_url)
    auth = httpx.BasicAuth(*sandbox.credentials())._auth_header
    with socket.create_connection((url.hostname, url.port), timeout=10) as sock:
        sock.sendall(
            (
                f"POST {url.path}/documents HTTP/1.1\r\nHost: {url.netloc}\r\n"
                f"Authorization: {auth}\r\n{framing}\r\n"
                f"Content-Type: multipart/form-data; boundary={BOUNDARY}\r\n\r\n"
            ).encode()
        )
        try:
            for piece in body:
                sock.sendall(piece)
        except OSError:
            pass  # the sandbox answered and closed before the whole body was sent
        answer = b""
        while b"MAX_SIZE" not in answer:
            data = sock.recv(65536)
            if not data:
                break
            answer += data
    return answer


BOUNDARY = "b0undary"


def form_head(holder: str) -> bytes:
    return (
        f'--{BOUNDARY}\r\nContent-Disposition: form-data; name="documentHolder"\r\n\r\n{holder}'
        f'\r\n--{BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="a.png"'
        "\r\nContent-Type: image/png\r\n\r\n"
    ).encode()


def refused_for_size(answer: bytes) -> bool:
    return (
        answer.startswith(b"HTTP/1.1 400") and b'"field":"file","constraint":"MAX_SIZE"' in answer
    )


def test_declared_length_over_the_cap_is_refused_unread(
    sandbox: RunningSandbox, holder: str
) -> None:
    # only the first bytes are ever sent: an answer proves the sandbox did not wait for more
    framing = f"Content-Length: {MAX_FILE_BYTES * 2}"
    answer = raw_upload(sandbox, holder, framing, iter([form_head(holder)]))
    assert refused_for_size(answer), answer[:300]


def test_streamed_body_over_the_cap(sandbox: RunningSandbox, holder: str) -> None:
    """A chunked body (no Content-Length) is counted as it arrives and cut off: the body
    is never finished, so only a sandbox that stops reading at the cap can answer."""

    def chunks() -> Iterator[bytes]:
        head = form_head(holder)
        yield b"%x\r\n%s\r\n" % (len(head), head)
        chunk = b"\x00" * (256 * 1024)
        for _ in range(MAX_FILE_BYTES // len(chunk) + 4):
            yield b"%x\r\n%s\r\n" % (len(chunk), chunk)

    answer = raw_upload(sandbox, holder, "Transfer-Encoding: chunked", chunks())
    assert refused_for_size(answer), answer[:300]


@pytest.mark.parametrize(
    ("content", "content_type"),
    [(png(319, 800), "image/png"), (png(800, 100), "image/png"), (jpeg(640, 200), "image/jpeg")],
)
def test_small_photos_fail_the_quality_check(
    client: httpx.Client, holder: str, content: bytes, content_type: str
) -> None:
    response = upload(client, holder, content=content, content_type=content_type)
    assert response.status_code == 422, response.text
    body = response.json()
    assert body["code"] == "DOCUMENT_REJECTED" and "four corners" in body["reason"]


def test_photos_at_the_threshold_pass(client: httpx.Client, holder: str) -> None:
    assert upload(client, holder, content=png(320, 320)).status_code == 201
    assert (
        upload(client, holder, content=jpeg(320, 480), content_type="image/jpeg").status_code == 201
    )


def test_image_headers() -> None:
    assert images.sniff(PDF) == images.PDF
    assert images.sniff(jpeg()) == images.JPEG
    assert images.sniff(png()) == images.PNG
    assert images.sniff(b"GIF89a") is None
    assert images.png_dimensions(png(1234, 567)) == (1234, 567)
    assert images.png_dimensions(png()[:20]) is None
    assert images.jpeg_dimensions(jpeg(1024, 768)) == (1024, 768)
    assert images.jpeg_dimensions(jpeg(300, 200, sof=0xC2, exif=60000)) == (300, 200)
    assert images.jpeg_dimensions(b"\xff\xd8\xff\xda\x00\x02") is None  # scan before a frame
    assert images.jpeg_dimensions(jpeg()[:30]) is None
    assert images.jpeg_dimensions(b"\xff\xd8\x00\x00") is None
