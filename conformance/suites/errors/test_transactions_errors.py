"""§4 Quotes and transactions, §7 Errors — GET /transactions: the ``status`` filter applies to
payment transactions only, so combining it with ``type=CARD`` answers 400."""

from __future__ import annotations

import pytest

from conformance.contract import clauses
from conformance.exchange.assertions import assert_status

pytestmark = pytest.mark.resource("Transaction")


# Payment statuses (§2 Transaction) and card transaction statuses (§2 CardTransaction): any
# status with type=CARD is refused, so a server that filters card transactions by their own
# statuses breaks the rule as much as one that ignores it.
STATUSES = ["COMPLETED", "PENDING", "FAILED", "SETTLED", "DECLINED", "VOIDED"]


@pytest.mark.requirement("TRANSACTIONS-STATUS-WITH-CARD-400")
@pytest.mark.parametrize("status", STATUSES)
def test_a_status_filter_with_type_card_answers_400(client, status):
    response = client.get("/transactions", params={"status": status, "type": "CARD"})
    assert_status(
        response,
        400,
        clauses.ERRORS,
        f"GET /transactions with a status filter (status={status}) combined with type=CARD "
        "answers 400: status filters payment transactions only, whatever its value",
    )
