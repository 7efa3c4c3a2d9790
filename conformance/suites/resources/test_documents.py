"""§2 Document (upload, multipart/form-data) — the form fields and the rules on them.

``documentHolder`` is a Customer or BeneficialOwner id; ``documentType`` takes
``PASSPORT``, ``DRIVERS_LICENSE`` and ``NATIONAL_ID`` (and other types); ``side`` is
``FRONT`` or ``BACK`` for the two-sided types, a passport is one image; identity documents
need ``documentNumber`` and ``issuingAuthority``.
"""

from __future__ import annotations

import pytest

from conformance.contract import clauses
from conformance.contract.failures import check
from conformance.customers.document_files import identity_photo, pdf_document
from conformance.exchange.assertions import assert_invalid_input

pytestmark = [pytest.mark.resource("Document"), pytest.mark.writes]

CLAUSE = clauses.DOCUMENT
IDENTITY_UPLOADS = [
    ("PASSPORT", None),
    ("DRIVERS_LICENSE", "FRONT"),
    ("DRIVERS_LICENSE", "BACK"),
    ("NATIONAL_ID", "FRONT"),
    ("NATIONAL_ID", "BACK"),
]


@pytest.fixture(scope="module")
def holder(onboarding):
    return onboarding.individual("001")["id"]


@pytest.mark.requirement("DOCUMENT-MULTIPART-UPLOAD")
def test_an_upload_with_every_form_field_is_stored(onboarding, holder):
    form = {
        "documentType": "DRIVERS_LICENSE",
        "side": "FRONT",
        "documentNumber": "D1234567",
        "issuingAuthority": "Specimen Motor Vehicles",
        "country": "US",
    }
    document = onboarding.upload_ok(
        holder,
        form["documentType"],
        identity_photo("png"),
        side=form["side"],
        number=form["documentNumber"],
        authority=form["issuingAuthority"],
        country=form["country"],
    )
    echoed = {k: document.get(k) for k in ("documentHolder", *form) if k in document}
    sent = {"documentHolder": holder, **form}
    check(
        all(value == sent[key] for key, value in echoed.items()),
        CLAUSE,
        "the stored document carries the form fields as uploaded",
        expected={k: sent[k] for k in echoed},
        observed=echoed,
    )


@pytest.mark.requirement("DOCUMENT-HOLDER-KINDS")
def test_a_customer_and_a_beneficial_owner_can_both_hold_documents(onboarding):
    business = onboarding.business("001")
    owner = onboarding.add_owner(business["id"])
    for holder in (onboarding.individual("001")["id"], owner["id"]):
        onboarding.upload_ok(holder, "PASSPORT", pdf_document())


@pytest.mark.requirement(
    "DOCUMENT-TYPE-VALUES", "DOCUMENT-SIDE-TWO-SIDED", "DOCUMENT-PASSPORT-ONE-IMAGE"
)
@pytest.mark.parametrize(("document_type", "side"), IDENTITY_UPLOADS)
def test_each_identity_document_type_is_accepted(onboarding, holder, document_type, side):
    onboarding.upload_ok(holder, document_type, identity_photo("jpeg"), side=side)


@pytest.mark.requirement("DOCUMENT-SIDE-TWO-SIDED")
@pytest.mark.parametrize("document_type", ["DRIVERS_LICENSE", "NATIONAL_ID"])
@pytest.mark.parametrize("side", ["LEFT", "TOP", "BOTH"])
def test_a_side_other_than_front_or_back_is_refused(onboarding, holder, document_type, side):
    response = onboarding.upload(holder, document_type, identity_photo("png"), side=side)
    assert_invalid_input(response, [("side",)], CLAUSE)


@pytest.mark.requirement("DOCUMENT-IDENTITY-NUMBER-AUTHORITY-REQUIRED")
@pytest.mark.parametrize(("document_type", "side"), [("PASSPORT", None), ("NATIONAL_ID", "FRONT")])
@pytest.mark.parametrize("missing", ["documentNumber", "issuingAuthority"])
def test_an_identity_document_needs_its_number_and_issuing_authority(
    onboarding, holder, document_type, side, missing
):
    fields: dict[str, str | None] = {"number": "X1234567", "authority": "Specimen Office"}
    fields["number" if missing == "documentNumber" else "authority"] = None
    response = onboarding.upload(holder, document_type, pdf_document(), side=side, **fields)
    assert_invalid_input(response, [(missing,)], CLAUSE)
