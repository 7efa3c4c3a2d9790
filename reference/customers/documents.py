"""``POST /documents`` (§2 Document, §4, §8 uploaded document): a multipart upload,
validated, quality-checked and recorded.

The upload is bounded before it is parsed (``reference.kernel.request_body``: a declared
``Content-Length`` over the cap is refused unread, a body without one counted while it
streams). Only the metadata is kept (SQLite); the bytes are hashed and dropped, as
nothing reads them back.
"""

from __future__ import annotations

import hashlib
import uuid
from dataclasses import dataclass
from typing import Any

from starlette.datastructures import UploadFile
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from reference.customers import images
from reference.customers.owners import find_owner
from reference.customers.store import load
from reference.kernel.clock import iso, utc_now
from reference.kernel.db import Database
from reference.kernel.errors import ApiError, FieldError, InvalidInput
from reference.kernel.field_checks import country, text
from reference.kernel.request_body import DOCUMENT_LIMIT, MAX_DOCUMENT_BYTES
from reference.kernel.routing import ApiRequest, Operation, api_route
from reference.kernel.seams import seam
from reference.kernel.settings import ServerSettings
from reference.kernel.validation import Problems

MAX_FILE_BYTES = MAX_DOCUMENT_BYTES  # §8: at most 10 MB
MIN_IMAGE_SIDE = 320  # the documented sandbox quality trigger, in pixels
QUALITY_REASON = "the four corners must be in frame and in focus"

IDENTITY_TYPES = ("PASSPORT", "DRIVERS_LICENSE", "NATIONAL_ID")
TWO_SIDED = frozenset({"DRIVERS_LICENSE", "NATIONAL_ID"})
# §2 Document names the identity types and "other types for proof of address and business
# documents" without naming them: these are the ones the sandbox names (the examples its
# document gives); any other type is taken as such a document, held to no identity rule.
DOCUMENT_TYPES = (
    *IDENTITY_TYPES,
    "PROOF_OF_ADDRESS",
    "UTILITY_BILL",
    "BANK_STATEMENT",
    "CERTIFICATE_OF_INCORPORATION",
    "ARTICLES_OF_ASSOCIATION",
    "SHAREHOLDER_REGISTER",
)
_TEXT_FIELDS = (
    "documentHolder",
    "documentType",
    "side",
    "documentNumber",
    "issuingAuthority",
    "country",
)
_ACCEPTED = (images.PDF, images.JPEG, images.PNG)
_UNSUPPORTED = "must be application/pdf, image/jpeg or image/png, declared as what it is"

ACCEPTED_MEDIA_TYPE = seam(
    "customers.document_media_type",
    "the media type an uploaded file is stored as: the sniffed one when it is a PDF, JPEG"
    " or PNG declared as what it is and readable, else None, so it is refused"
    " (context: upload, sniffed)",
)
PHOTO_PASSES_QUALITY = seam(
    "customers.photo_passes_quality",
    "whether a photo's sides reach MIN_IMAGE_SIDE pixels (context: size, its width and height)",
)


@dataclass(frozen=True, slots=True)
class Upload:
    """The ``file`` part: at most ``MAX_FILE_BYTES`` (+1, to tell that it was over)."""

    filename: str | None
    declared_type: str
    data: bytes


def _form_error(message: str) -> InvalidInput:
    return InvalidInput([FieldError("body", "MULTIPART", message)])


async def read_document_form(request: Request) -> dict[str, Any]:
    """The form's text fields and its file, read with bounded memory and disk (the body is
    already bounded by the route's ``DOCUMENT_LIMIT``)."""
    if not request.headers.get("content-type", "").startswith("multipart/form-data"):
        raise _form_error("must be multipart/form-data")
    try:
        async with request.form(max_files=1, max_fields=len(_TEXT_FIELDS) + 4) as form:
            fields: dict[str, Any] = {}
            for name in _TEXT_FIELDS:
                value = form.get(name)
                if value is not None:
                    fields[name] = value if isinstance(value, str) else _NotText()
            part = form.get("file")
            upload: Upload | str | None = part if isinstance(part, str) else None
            if isinstance(part, UploadFile):
                data = await part.read(MAX_FILE_BYTES + 1)
                declared_type = (part.content_type or "").split(";")[0].strip().lower()
                upload = Upload(part.filename, declared_type, data)
    except HTTPException as exc:  # Starlette's report of a malformed multipart body
        raise _form_error(str(exc.detail)) from exc
    return {"fields": fields, "file": upload}


class _NotText:
    """A form value that arrived as a file where text was expected."""


def _validate(request: ApiRequest) -> dict[str, Any]:
    problems = Problems()
    values: dict[str, Any] = {}
    invalid: set[str] = set()  # reported already: not reported again as missing
    for name, value in request.body["fields"].items():
        checked = text(problems, name, None if isinstance(value, _NotText) else value)
        if checked is None:
            invalid.add(name)
        else:
            values[name] = checked

    def required(name: str) -> Any:
        return None if name in invalid else problems.required(values, name, "")

    holder = required("documentHolder")
    if holder is not None and not _holder_known(request, holder):
        problems.unknown("documentHolder", "UNKNOWN_HOLDER", "is not a customer or owner here")
    kind = required("documentType")  # any type with text in it (DOCUMENT_TYPES)
    side = values.get("side")
    if kind in TWO_SIDED:
        side = required("side")
    elif kind == "PASSPORT" and side is not None:
        problems.add("side", "NOT_ALLOWED", "a PASSPORT is one image")
        side = None
    if side is not None:
        problems.one_of("side", side, ("FRONT", "BACK"))
    if kind in IDENTITY_TYPES:
        required("documentNumber")
        required("issuingAuthority")
    if values.get("country") is not None:
        country(problems, "country", values["country"])
    content_type = _check_file(problems, request.body["file"], request.services.settings)
    problems.raise_if_any()
    return {**values, "contentType": content_type}


def _holder_known(request: ApiRequest, holder: str) -> bool:
    db, platform_id = request.services.db, request.platform.id
    customer = load(db, platform_id, holder)
    return customer is not None or find_owner(db, platform_id, holder) is not None


def _check_file(problems: Problems, upload: Any, settings: ServerSettings) -> str | None:
    """The file's media type, after the type, size and quality checks."""
    if upload is None:
        problems.add("file", "REQUIRED", "is required")
        return None
    if not isinstance(upload, Upload):
        problems.add("file", "TYPE_FILE", "must be a file part")
        return None
    if len(upload.data) > MAX_FILE_BYTES:
        problems.add("file", "MAX_SIZE", "must be at most 10 MB")
        return None
    actual = images.sniff(upload.data)
    problem = _media_type_problem(upload, actual)
    accepted = settings.seams.apply(
        ACCEPTED_MEDIA_TYPE, actual if problem is None else None, upload=upload, sniffed=actual
    )
    if accepted is None:
        problems.add("file", "UNSUPPORTED_MEDIA_TYPE", problem or _UNSUPPORTED)
    return accepted


def _media_type_problem(upload: Upload, actual: str | None) -> str | None:
    """Why the file's media type is refused, or None."""
    if actual is None or upload.declared_type != actual or actual not in _ACCEPTED:
        return _UNSUPPORTED
    if actual != images.PDF and images.dimensions(upload.data, actual) is None:
        return f"is not a readable {actual} image"
    return None


def _quality_check(upload: Upload, content_type: str, settings: ServerSettings) -> None:
    """422 ``DOCUMENT_REJECTED`` for a photo under ``MIN_IMAGE_SIDE`` pixels a side."""
    size = images.dimensions(upload.data, content_type)
    if size is None:
        return
    passes = min(size) >= MIN_IMAGE_SIDE
    if not settings.seams.apply(PHOTO_PASSES_QUALITY, passes, size=size):
        raise ApiError(
            422,
            "DOCUMENT_REJECTED",
            f"the photo failed the quality check ({size[0]}x{size[1]} pixels)",
            reason=QUALITY_REASON,
        )


def create_document(request: ApiRequest) -> Response:
    """``POST /documents`` → 201 Document."""
    services = request.services
    with services.db.transaction():
        values = _validate(request)
        upload: Upload = request.body["file"]
        _quality_check(upload, values["contentType"], services.settings)
        document = {
            "id": f"Document:{uuid.uuid4()}",
            "documentHolder": values["documentHolder"],
            "documentType": values["documentType"],
            "fileName": upload.filename,
            "contentType": values["contentType"],
            "size": len(upload.data),
            "createdAt": iso(utc_now()),
        }
        # §2 Document allows no null: a PASSPORT (one image) has no side, so none is shown
        for optional in ("side", "country"):
            if values.get(optional) is not None:
                document[optional] = values[optional]
        services.db.execute(
            """INSERT INTO documents (id, platform_id, holder_id, document_type, side,
               document_number, issuing_authority, country, file_name, content_type, size,
               sha256, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)""",
            (
                document["id"],
                request.platform.id,
                document["documentHolder"],
                document["documentType"],
                values.get("side"),
                values.get("documentNumber"),
                values.get("issuingAuthority"),
                values.get("country"),
                document["fileName"],
                document["contentType"],
                document["size"],
                hashlib.sha256(upload.data).hexdigest(),
                document["createdAt"],
            ),
        )
    return JSONResponse(document, status_code=201)


def documents_of(db: Database, holder_id: str) -> set[tuple[str, str | None]]:
    """The ``(documentType, side)`` pairs on file for a customer or owner."""
    rows = db.fetchall(
        "SELECT DISTINCT document_type, side FROM documents WHERE holder_id = ?", (holder_id,)
    )
    return {(row["document_type"], row["side"]) for row in rows}


ROUTES = [
    api_route(
        "/documents",
        Operation("POST", create_document, reader=read_document_form, limit=DOCUMENT_LIMIT),
    ),
]
