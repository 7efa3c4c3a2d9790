"""§4 Quotes and transactions, §7 Errors — GET /transactions: the ``status`` filter applies to
payment transactions only, so combining it with ``type=CARD`` answers 400."""

from __future__ import annotations

import pytest

from conformance.assertions import assert_status

pytestmark = pytest.mark.resource("Transaction")


@pytest.mark.requirement("TRANSACTIONS-STATUS-WITH-CARD-400")
@pytest.mark.parametrize("status", ["COMPLETED", "PENDING", "FAILED"])
def test_a_status_filter_with_type_card_answers_400(client, status):
    response = client.get("/transactions", params={"status": status, "type": "CARD"})
    assert_status(
        response,
        400,
        "§7 Errors",
        "GET /transactions with a status filter combined with type=CARD answers 400 (status "
        "filters payment transactions only)",
    )
