"""§4 Quotes and transactions — GET /transactions honours its ``status`` and ``type`` filters."""

from __future__ import annotations

import pytest

from conformance.contract import clauses
from conformance.contract.failures import check
from conformance.exchange.list_pages import Pagination, read_list, skip_unlisted

pytestmark = [pytest.mark.resource("Transaction"), pytest.mark.writes]

CLAUSE = clauses.QUOTES_ENDPOINTS + " — GET /transactions"


@pytest.fixture(scope="module")
def history(funding, quotes, transaction_history):
    """A customer with one COMPLETED and one PENDING (quoted, not executed) transaction."""
    wallet = funding.wallet(("USD",))
    corridor = wallet.corridor()
    paid = quotes.pay(corridor.source_id, corridor.destination_id, 11_111)
    pending = quotes.quote(corridor.body(amount=22_222))
    transaction_history.completed(wallet.customer_id, paid["transactionId"])
    return wallet.customer_id, {
        "COMPLETED": paid["transactionId"],
        "PENDING": pending["transactionId"],
    }


@pytest.mark.requirement("TRANSACTIONS-LIST-FILTERS")
@pytest.mark.parametrize(
    "filters",
    [
        {"status": "COMPLETED"},
        {"status": "PENDING"},
        {"type": "OUTGOING"},
        {"status": "COMPLETED", "type": "OUTGOING"},
    ],
    ids=["status=COMPLETED", "status=PENDING", "type=OUTGOING", "both"],
)
def test_every_transaction_listed_matches_the_filters(client, profile, history, filters):
    customer_id, ours = history
    # customerId is not a stated filter: sent, but the customer's rows are picked here
    listing = read_list(
        client,
        "/transactions",
        {"customerId": customer_id, **filters},
        Pagination.of(profile.pagination),
        clause=CLAUSE,
        statement="GET /transactions with status and type filters returns the matching "
        "transactions",
        unstated=("customerId",),
    )
    response = listing.answers[-1]
    items = listing.items
    wrong = [
        {k: i.get(k) for k in ("id", *filters)}
        for i in items
        if any(i.get(k) != v for k, v in filters.items())
    ]
    check(
        not wrong,
        CLAUSE,
        f"every transaction returned matches the filters {filters}",
        observed=wrong,
        exchange=response.exchange,
    )
    # a settled payment stays COMPLETED; a pending quote's transaction may expire meanwhile
    if filters.get("status", "COMPLETED") == "COMPLETED":
        if not any(i.get("id") == ours["COMPLETED"] for i in items) and not listing.complete:
            skip_unlisted(listing, f"the customer's completed payment {ours['COMPLETED']}")
        check(
            any(i.get("id") == ours["COMPLETED"] for i in items),
            CLAUSE,
            f"the customer's completed payment is listed under {filters}",
            expected=ours["COMPLETED"],
            observed=[i.get("id") for i in items],
            exchange=response.exchange,
        )
