"""Builders for the customer and verification tests: request bodies, tiny images, uploads
and complete packets, all over real HTTP against a running sandbox."""

from __future__ import annotations

import struct
import zlib
from typing import Any

import httpx

ADDRESS = {"line1": "1 Main St", "city": "Springfield", "postalCode": "12345", "country": "US"}
VERSIONS = {
    "SERVICE_END_USER_TERMS": "2025-06-01",
    "SERVICE_PRIVACY_POLICY": "2025-03-15",
    "SERVICE_E_SIGN_CONSENT": "2024-11-01",
}


def individual(name: str = "Ann Lee 001", **overrides: Any) -> dict[str, Any]:
    """A create body carrying every field of a complete individual packet."""
    body: dict[str, Any] = {
        "customerType": "INDIVIDUAL",
        "fullName": name,
        "birthDate": "1990-04-01",
        "nationality": "US",
        "idType": "SSN",
        "identifier": "123-45-6789",
        "address": dict(ADDRESS),
    }
    return {**body, **overrides}


def business_info(registration: str | None = "REG-1001", **overrides: Any) -> dict[str, Any]:
    info: dict[str, Any] = {
        "legalName": "Acme Widgets Inc",
        "country": "US",
        "taxId": "12-3456789",
        "incorporatedOn": "2015-06-30",
    }
    if registration is not None:
        info["registrationNumber"] = registration
    return {**info, **overrides}


def business(registration: str | None = "REG-1001", **overrides: Any) -> dict[str, Any]:
    """A create body with complete business information."""
    body = {"customerType": "BUSINESS", "businessInfo": business_info(registration)}
    return {**body, **overrides}


def consent(kind: str = "SERVICE_END_USER_TERMS", **overrides: Any) -> dict[str, Any]:
    entry = {
        "type": kind,
        "termsVersion": VERSIONS[kind],
        "acceptedAt": "2025-01-02T03:04:05Z",
        "ipAddress": "203.0.113.7",
        "acceptanceMethod": "CHECKBOX",
    }
    return {**entry, **overrides}


def owner_body(customer_id: str, last_name: str = "Smith", **overrides: Any) -> dict[str, Any]:
    body = {
        "customerId": customer_id,
        "roles": ["DIRECTOR", "UBO"],
        "ownershipPercentage": 60,
        "personalInfo": {
            "firstName": "Bea",
            "lastName": last_name,
            "birthDate": "1980-02-03",
            "nationality": "US",
            "address": dict(ADDRESS),
            "idType": "SSN",
            "identifier": "987-65-4321",
            "countryOfIssuance": "US",
        },
    }
    return {**body, **overrides}


def _chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))


def png(width: int = 640, height: int = 480) -> bytes:
    """A PNG header: signature, IHDR and IEND (the sandbox reads only IHDR)."""
    ihdr = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + _chunk(b"IHDR", ihdr) + _chunk(b"IEND", b"")


def jpeg(width: int = 640, height: int = 480, sof: int = 0xC0, exif: int = 0) -> bytes:
    """A JPEG header: SOI, APP0, optional APP1 padding, a DHT, SOFn, then EOI."""
    app0 = b"\xff\xe0" + struct.pack(">H", 16) + b"JFIF\x00\x01\x01\x00\x00\x01\x00\x01\x00\x00"
    app1 = b"\xff\xe1" + struct.pack(">H", exif + 2) + b"\x00" * exif if exif else b""
    dht = b"\xff\xc4" + struct.pack(">H", 5) + b"\x00\x01\x00"
    frame = struct.pack(">HBHHB", 11, 8, height, width, 1) + b"\x01\x11\x00"
    return b"\xff\xd8" + app0 + app1 + dht + b"\xff\xff" + bytes([0xFF, sof]) + frame + b"\xff\xd9"


PDF = b"%PDF-1.4\n1 0 obj<<>>endobj\ntrailer<<>>\n%%EOF\n"


def upload(
    client: httpx.Client,
    holder: str,
    document_type: str = "PASSPORT",
    *,
    side: str | None = None,
    content: bytes | None = None,
    content_type: str = "image/png",
    file_name: str = "doc.png",
    **fields: str,
) -> httpx.Response:
    """``POST /documents`` as multipart; identity documents get a number and authority."""
    data = {"documentHolder": holder, "documentType": document_type}
    if document_type in ("PASSPORT", "DRIVERS_LICENSE", "NATIONAL_ID"):
        data.update(documentNumber="X1234567", issuingAuthority="State Dept", country="US")
    if side is not None:
        data["side"] = side
    data.update(fields)
    files = {"file": (file_name, png() if content is None else content, content_type)}
    return client.post("/documents", data=data, files=files)


def constraints(response: httpx.Response) -> dict[str, str]:
    """``{field: constraint}`` of a 400 ``INVALID_INPUT`` answer."""
    assert response.status_code == 400, response.text
    assert response.json()["code"] == "INVALID_INPUT"
    return {e["field"]: e["constraint"] for e in response.json()["details"]["errors"]}


def conflicts(response: httpx.Response) -> dict[str, str]:
    """``{field: constraint}`` of a 409 ``CONFLICT`` answer: a well-formed body the current
    state of a record refuses."""
    assert response.status_code == 409, response.text
    assert response.json()["code"] == "CONFLICT"
    return {e["field"]: e["constraint"] for e in response.json()["details"]["errors"]}


def missing_records(response: httpx.Response) -> dict[str, str]:
    """``{field: constraint}`` of a 404 ``NOT_FOUND`` answer: a well-formed body whose only
    problem is ids naming no record of the platform."""
    assert response.status_code == 404, response.text
    assert response.json()["code"] == "NOT_FOUND"
    return {e["field"]: e["constraint"] for e in response.json()["details"]["errors"]}


def created(response: httpx.Response) -> dict[str, Any]:
    assert response.status_code == 201, response.text
    body: dict[str, Any] = response.json()
    return body


def complete_individual(client: httpx.Client, name: str = "Ann Lee 001") -> dict[str, Any]:
    """A customer whose packet is complete: every field and a passport."""
    customer = created(client.post("/customers", json=individual(name)))
    created(upload(client, customer["id"]))
    return customer


def complete_business(
    client: httpx.Client, registration: str = "REG-1001", owner_last: str = "Smith"
) -> tuple[dict[str, Any], dict[str, Any]]:
    """A business with its certificate and one complete director with a passport."""
    customer = created(client.post("/customers", json=business(registration)))
    created(
        upload(
            client,
            customer["id"],
            "CERTIFICATE_OF_INCORPORATION",
            content=PDF,
            content_type="application/pdf",
            file_name="cert.pdf",
        )
    )
    owner = created(client.post("/beneficial-owners", json=owner_body(customer["id"], owner_last)))
    created(upload(client, owner["id"]))
    return customer, owner


def submit(client: httpx.Client, customer_id: str) -> dict[str, Any]:
    """``POST /verifications``; it must answer 200."""
    response = client.post("/verifications", json={"customerId": customer_id})
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return body


def status_of(client: httpx.Client, customer_id: str) -> str:
    body = client.get(f"/customers/{customer_id}").json()
    return str(body.get("kycStatus") or body.get("kybStatus"))


def error_fields(verification: dict[str, Any]) -> set[tuple[str, str]]:
    """``(resourceId, field or document marker)`` of each verification error."""
    return {
        (e["resourceId"], e.get("field") or "document:" + ",".join(e["acceptedDocumentTypes"]))
        for e in verification["errors"]
    }
