"""``POST /documents`` as a client must send it (§2 Document, §4, §8 uploaded document): a
multipart/form-data form whose file is a PDF, JPEG or PNG of at most 10 MB, declared as
what it is, with the fields an identity document needs.

The form is read by the customers area's own reader (``read_document_form``); only what
the interface states is judged. Choices where it is silent (SANDBOX.md, "Client check"):
``documentHolder``, ``documentType`` and ``file`` are the upload itself and are expected;
``documentType`` values are open ("and other types"), so any is taken; a PASSPORT's side
and ``country`` are not judged.
"""

from __future__ import annotations

from starlette.requests import Request
from starlette.types import Receive, Scope

from reference.customers import images
from reference.customers.documents import (
    IDENTITY_TYPES,
    MAX_FILE_BYTES,
    TWO_SIDED,
    Upload,
    read_document_form,
)
from reference.kernel.errors import InvalidInput

ACCEPTED = (images.PDF, images.JPEG, images.PNG)


async def upload_problems(scope: Scope, receive: Receive) -> list[str]:
    """What is wrong with the upload whose body ``receive`` replays; empty when nothing."""
    request = Request(scope, receive)
    content_type = request.headers.get("content-type", "")
    if not content_type.startswith("multipart/form-data"):
        shown = content_type or "none"
        return [f"the upload must be multipart/form-data; Content-Type was {shown}"]
    try:
        form = await read_document_form(request)
    except InvalidInput as exc:
        return [f"the multipart body cannot be read: {e.message}" for e in exc.errors]
    fields = form["fields"]
    problems = [
        f"form field {name} is missing"
        for name in ("documentHolder", "documentType")
        if not isinstance(fields.get(name), str) or not fields[name]
    ]
    kind = fields.get("documentType")
    if kind in IDENTITY_TYPES:
        problems += [
            f"form field {name} is missing: it is required for identity documents ({kind})"
            for name in ("documentNumber", "issuingAuthority")
            if not isinstance(fields.get(name), str) or not fields[name]
        ]
    if kind in TWO_SIDED and fields.get("side") not in ("FRONT", "BACK"):
        problems.append(
            f"form field side must be FRONT or BACK for {kind}; got {fields.get('side')!r}"
        )
    return problems + _file_problems(form["file"])


def _file_problems(upload: Upload | str | None) -> list[str]:
    if upload is None:
        return ["form part file is missing"]
    if not isinstance(upload, Upload):
        return ["form part file must be a file part (with a filename and a Content-Type)"]
    problems = []
    if len(upload.data) > MAX_FILE_BYTES:
        problems.append("file is over 10 MB (§8 Limits: at most 10 MB)")
    actual = images.sniff(upload.data)
    declared = upload.declared_type or "none"
    if declared not in ACCEPTED:
        problems.append(
            f"file's Content-Type is {declared}; must be application/pdf, image/jpeg or image/png"
        )
    if actual not in ACCEPTED:
        problems.append("file's bytes are not a PDF, JPEG or PNG")
    elif declared in ACCEPTED and actual != declared:
        problems.append(f"file is declared {declared} but its bytes are {actual}")
    return problems
