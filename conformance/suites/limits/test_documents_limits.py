"""§8 Limits — uploaded documents: application/pdf, image/jpeg or image/png, at most 10 MB.

"10 MB" is read both ways: a file of 10,000,000 bytes is within every reading, and one of
10 x 1024 x 1024 + 1 bytes is over every reading.
"""

from __future__ import annotations

import pytest

from conformance.contract import clauses
from conformance.contract.failures import check
from conformance.customers.document_files import (
    MEBIBYTE,
    identity_photo,
    pdf_document,
    pdf_of_size,
    unsupported_files,
)

pytestmark = [pytest.mark.resource("Document"), pytest.mark.writes]

CLAUSE = clauses.LIMITS + " — uploaded document"
REFUSALS = (400, 413, 415, 422)


@pytest.fixture(scope="module")
def holder(onboarding):
    return onboarding.individual("001")["id"]


@pytest.mark.requirement("LIMIT-DOCUMENT-MEDIA-TYPES")
@pytest.mark.parametrize("kind", ["pdf", "jpeg", "png"])
def test_pdf_jpeg_and_png_files_are_accepted(onboarding, holder, kind):
    file = pdf_document() if kind == "pdf" else identity_photo(kind)
    onboarding.upload_ok(holder, "PASSPORT", file)


@pytest.mark.requirement("LIMIT-DOCUMENT-MEDIA-TYPES")
@pytest.mark.parametrize("file", unsupported_files(), ids=lambda f: f.content_type)
def test_files_of_other_media_types_are_refused(onboarding, holder, file):
    response = onboarding.upload(holder, "PASSPORT", file)
    check(
        response.status in REFUSALS,
        CLAUSE,
        f"an uploaded document is PDF, JPEG or PNG: a {file.content_type} file is refused",
        expected=f"one of {REFUSALS}",
        observed=(response.status, response.content[:200]),
        exchange=response.exchange,
    )


@pytest.mark.requirement("LIMIT-DOCUMENT-SIZE-10MB")
def test_a_file_over_10_mb_is_refused(onboarding, holder):
    response = onboarding.upload(holder, "PASSPORT", pdf_of_size(10 * MEBIBYTE + 1))
    check(
        response.status in REFUSALS,
        CLAUSE,
        "an uploaded document is at most 10 MB: a file of 10 MiB + 1 byte is refused",
        expected=f"one of {REFUSALS}",
        observed=(response.status, response.content[:200]),
        exchange=response.exchange,
    )


@pytest.mark.requirement("LIMIT-DOCUMENT-SIZE-10MB")
def test_a_file_of_10_mb_is_accepted(onboarding, holder):
    onboarding.upload_ok(holder, "PASSPORT", pdf_of_size(10_000_000))
