"""§7 Errors — 422 DOCUMENT_REJECTED for a photo that fails the quality checks.

The interface names the checks (four corners in frame, focus, colour) but not how a target
judges them. The suite sends a photo that fails all three under any reading: tiny, flat
grey and blurred. It is also the reference sandbox's documented trigger (an image under
320 pixels a side).
"""

from __future__ import annotations

import pytest

from conformance.contract import clauses
from conformance.contract.error_codes import carries_code, code_of
from conformance.contract.failures import check
from conformance.customers.document_files import unreadable_photo
from conformance.exchange.assertions import assert_status

pytestmark = [pytest.mark.resource("Document"), pytest.mark.writes]

CLAUSE = clauses.ERRORS + " — 422 DOCUMENT_REJECTED"


@pytest.mark.requirement("DOCUMENT-REJECTED-422")
@pytest.mark.parametrize("kind", ["png", "jpeg"])
@pytest.mark.parametrize(
    ("document_type", "side"), [("DRIVERS_LICENSE", "FRONT"), ("PASSPORT", None)]
)
def test_a_photo_without_corners_focus_or_colour_is_rejected(onboarding, kind, document_type, side):
    customer = onboarding.individual("001")
    response = onboarding.upload(customer["id"], document_type, unreadable_photo(kind), side=side)
    assert_status(
        response,
        422,
        CLAUSE,
        "an uploaded photo that fails the quality checks (four corners, focus, colour) is "
        "rejected with 422",
    )
    check(
        carries_code(response.json, "DOCUMENT_REJECTED"),
        CLAUSE,
        "the rejection carries the code DOCUMENT_REJECTED",
        observed=code_of(response.json),
        exchange=response.exchange,
    )
