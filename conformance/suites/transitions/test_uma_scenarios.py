"""§4 Sandbox behaviours — for an identifier with a domain part (a UMA address
``$username@domain``), the scenario digits go at the end of the username part: a UMA
payment to ``$...005@domain`` times out while an ordinary one settles.
"""

from __future__ import annotations

import pytest

from conformance.contract import clauses
from conformance.contract.failures import check

pytestmark = [pytest.mark.resource("Quote"), pytest.mark.writes]

CLAUSE = clauses.SANDBOX_BEHAVIOURS
AMOUNT = 20_000


@pytest.mark.requirement("SANDBOX-SCENARIO-DOMAIN-IDENTIFIER")
def test_digits_at_the_end_of_the_username_part_select_the_scenario(
    funding, quotes, transaction_history, transfers
):
    wallet = funding.wallet(("USD",))
    source = wallet.sources["USD"]["id"]
    slow = quotes.quote(transfers.uma_body(source, transfers.uma_address("005"), AMOUNT))
    ordinary = quotes.quote(transfers.uma_body(source, transfers.uma_address(), AMOUNT))
    stuck = quotes.execute_ok(slow["id"])
    paid = quotes.execute_ok(ordinary["id"])
    transaction_history.settled(wallet.customer_id, paid["transactionId"])
    transaction = transaction_history.transaction(wallet.customer_id, stuck["transactionId"])
    status = (transaction or {}).get("status")
    check(
        status not in ("COMPLETED", "FAILED"),
        CLAUSE,
        "a UMA address whose username part ends in 005 gives a timeout: paid next to an "
        "ordinary UMA payment that has settled, it has not",
        expected="not yet COMPLETED or FAILED",
        observed=status,
    )
