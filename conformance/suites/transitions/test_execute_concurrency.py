"""§3 Quote and transaction — executing one quote many times at once moves its money once.

Execute moves a PENDING quote to PROCESSING and debits the source; a quote that is no
longer PENDING cannot be executed again. Requests sent together through the suite's client
from several threads must leave at most one execution, and one debit of the sending amount.
"""

from __future__ import annotations

import threading

import pytest

from conformance.contract import clauses
from conformance.contract.failures import ConformanceFailure, check

pytestmark = [pytest.mark.resource("Quote"), pytest.mark.writes]

CLAUSE = clauses.QUOTE_AND_TRANSACTION_STATES
THREADS = 12
ROUNDS = 3
AMOUNT = 40_000


@pytest.fixture(scope="module")
def wallet(funding):
    return funding.wallet(("USD",))


def execute_together(quotes, quote_id, threads=THREADS):
    """POST /quotes/{id}/execute from ``threads`` threads released at once; the statuses.
    A failure one of them met (a 5xx answer, say) is raised here, in the test's thread."""
    barrier = threading.Barrier(threads)
    statuses: list[int] = []
    failures: list[ConformanceFailure] = []

    def run():
        barrier.wait()
        try:
            statuses.append(quotes.execute(quote_id).status)
        except ConformanceFailure as failure:
            failures.append(failure)

    workers = [threading.Thread(target=run) for _ in range(threads)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    if failures:
        raise failures[0]
    return sorted(statuses)


@pytest.mark.requirement("QUOTE-EXECUTE-DEBITS-SOURCE", "QUOTE-EXECUTE-PROCESSING")
@pytest.mark.parametrize("round_", range(ROUNDS))
def test_simultaneous_executes_of_one_quote_debit_the_source_once(
    funding, quotes, transaction_history, wallet, round_
):
    corridor = wallet.corridor()
    before = funding.account_balances(wallet.customer_id, corridor.source_id)
    quote = quotes.quote(corridor.body(amount=AMOUNT))
    statuses = execute_together(quotes, quote["id"])
    succeeded = [s for s in statuses if 200 <= s < 300]
    check(
        len(succeeded) == 1,
        CLAUSE,
        f"execute moves a PENDING quote to PROCESSING once: of {THREADS} simultaneous "
        "executes of one quote exactly one succeeds",
        expected=f"one 2xx and {THREADS - 1} refusals",
        observed=statuses,
        requirement="QUOTE-EXECUTE-PROCESSING",
    )
    transaction_history.completed(wallet.customer_id, quote["transactionId"])
    after = funding.account_balances(wallet.customer_id, corridor.source_id)
    check(
        before.total - after.total == quote["totalSendingAmount"]
        and before.available - after.available == quote["totalSendingAmount"],
        CLAUSE,
        "execution debits the source once: both balances drop by the sending amount, once",
        expected=quote["totalSendingAmount"],
        observed={
            "total": before.total - after.total,
            "available": before.available - after.available,
        },
        requirement="QUOTE-EXECUTE-DEBITS-SOURCE",
    )
