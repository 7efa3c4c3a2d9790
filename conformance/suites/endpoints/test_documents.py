"""§4 Customers and verification — POST /documents (multipart form, part 2 Document)."""

from __future__ import annotations

import pytest

from conformance.customers.document_files import identity_photo, pdf_document

pytestmark = [pytest.mark.resource("Document"), pytest.mark.writes]


@pytest.mark.requirement("DOCUMENT-UPLOAD")
@pytest.mark.parametrize("kind", ["pdf", "png", "jpeg"])
def test_a_valid_upload_is_stored_and_returned(onboarding, kind):
    customer = onboarding.individual("001")
    file = pdf_document() if kind == "pdf" else identity_photo(kind)
    onboarding.upload_ok(customer["id"], "PASSPORT", file)  # the client checks the schema
