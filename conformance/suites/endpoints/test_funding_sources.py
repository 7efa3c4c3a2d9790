"""§4 Quotes and transactions — ``immediatelyExecute`` is only for a source that is an
internal account or has direct pull: a just-in-time (``REALTIME_FUNDING``) quote is never
executed immediately. The service may refuse the request or create the quote unexecuted.
"""

from __future__ import annotations

import pytest

from conformance.contract import clauses
from conformance.contract.failures import check

pytestmark = [pytest.mark.resource("Quote"), pytest.mark.writes]

CLAUSE = clauses.QUOTES_ENDPOINTS + " — POST /quotes"


@pytest.mark.requirement("QUOTE-IMMEDIATE-EXECUTE-SOURCES")
def test_immediately_execute_does_not_execute_a_just_in_time_quote(
    money_customers, funding, quotes, transfers
):
    customer = money_customers.approved_customer(("USD",))
    destination = funding.active_account(customer["id"], "USD")
    body = transfers.jit_body(customer["id"], "USD", destination["id"], immediatelyExecute=True)
    response = quotes.create_quote(body)
    status = response.json.get("status") if 200 <= response.status < 300 else None
    credited = funding.account_balances(customer["id"], destination["id"]).available
    check(
        status not in ("PROCESSING", "COMPLETED") and credited == 0,
        CLAUSE,
        "immediatelyExecute is only for internal or direct-pull sources: a just-in-time quote "
        "is refused or created unexecuted, and no money moves",
        expected="4xx, or a quote neither PROCESSING nor COMPLETED; balance 0",
        observed=(response.status, status, credited),
        exchange=response.exchange,
    )
