"""§3 Quote and transaction — a pull source (an external account with direct pull) is
executed like a prefunded one: with ``immediatelyExecute`` the quote is returned
``COMPLETED``; through ``execute`` it is ``PROCESSING`` with its ``transactionId``. The
pulled money reaches the customer's internal account.

The identifier's last digits select the scenario of a pull source as of a payout destination
(§4 Sandbox behaviours): the adapter's failing identifier fails the pull, ``005`` times out.

Which external accounts have direct pull is not shown: a target that refuses a US bank
account as a source makes the tests skip.
"""

from __future__ import annotations

import pytest

from conformance.contract import clauses
from conformance.contract.failures import check
from conformance.exchange.assertions import required_json
from conformance.payments.quote_bodies import quote_body

pytestmark = [pytest.mark.resource("Quote"), pytest.mark.writes]

CLAUSE = clauses.QUOTE_AND_TRANSACTION_STATES
SANDBOX_CLAUSE = clauses.SANDBOX_BEHAVIOURS
AMOUNT = 15_000


@pytest.mark.requirement("QUOTE-IMMEDIATE-EXECUTE-COMPLETED", "QUOTE-EXECUTE-PROCESSING")
def test_a_pull_source_executes_like_a_prefunded_one(
    money_customers, external_accounts, funding, quotes, transaction_history, advisory
):
    customer = money_customers.approved_customer(("USD",))
    destination = funding.active_account(customer["id"], "USD")["id"]
    pulled = external_accounts.external_account(customer["id"], "USD")["id"]
    body = quote_body(pulled, destination, amount=AMOUNT, immediatelyExecute=True)
    response = quotes.create_quote(body)
    if response.status == 400:
        pytest.skip(
            "the target refused a US bank account as a pull source (which external accounts "
            f"have direct pull is not shown): {response.content[:200]!r}"
        )
    immediate = response.json if 200 <= response.status < 300 else {}
    check(
        immediate.get("status") == "COMPLETED",
        CLAUSE,
        "POST /quotes with immediatelyExecute and a pullable source creates and executes the "
        "quote in one request and returns it COMPLETED",
        expected="COMPLETED",
        observed=(response.status, immediate.get("status")),
        exchange=response.exchange,
    )
    quote = quotes.quote(quote_body(pulled, destination, amount=AMOUNT))
    executed = quotes.execute_ok(quote["id"])
    check(
        executed.get("status") in ("PROCESSING", "COMPLETED")
        and executed.get("transactionId") == quote.get("transactionId"),
        CLAUSE,
        "executing a PENDING pull-source quote returns it PROCESSING with the transactionId it "
        "carried at creation",
        expected=("PROCESSING", quote.get("transactionId")),
        observed=(executed.get("status"), executed.get("transactionId")),
    )
    if executed.get("status") == "COMPLETED":
        advisory(f"{CLAUSE}: execute answered the pull-source quote COMPLETED")
    for transaction_id in (immediate.get("transactionId"), quote.get("transactionId")):
        transaction_history.completed(customer["id"], str(transaction_id))
    credited = funding.account_balances(customer["id"], destination).available
    expected = int(immediate.get("totalReceivingAmount") or 0) + int(
        quote.get("totalReceivingAmount") or 0
    )
    check(
        credited == expected,
        CLAUSE,
        "the money pulled from the external source reaches the internal destination",
        expected=expected,
        observed=credited,
    )


def _pull(quotes, customer_id, destination, source):
    """Quote and execute a pull from ``source`` into ``destination``; skips when the
    target refuses the external account as a pull source."""
    response = quotes.create_quote(quote_body(source["id"], destination, amount=AMOUNT))
    if response.status == 400:
        pytest.skip(
            "the target refused a US bank account as a pull source (which external accounts "
            f"have direct pull is not shown): {response.content[:200]!r}"
        )
    quote = required_json(
        response,
        clauses.QUOTES_ENDPOINTS,
        "POST /quotes from a pullable external account to an internal account creates the Quote",
        status=(200, 201),
    )
    return quotes.execute_ok(quote["id"])


def _final(transaction):
    return transaction.get("status") in ("COMPLETED", "FAILED")


@pytest.mark.requirement(
    "SANDBOX-TIMEOUT-005", "SANDBOX-INSTANT-SETTLEMENT", "TRANSACTION-FAILURE-REASON"
)
def test_a_pull_sources_suffix_selects_its_scenario(
    money_customers, external_accounts, funding, quotes, transaction_history
):
    """§4 Sandbox behaviours: the last digits select the scenario "whenever the account is a
    pull source or payout destination". A pull from the adapter's failing identifier fails
    with a failureReason and moves no money; a pull from one ending in 005 does not settle
    at once, while an ordinary pull next to it does."""
    customer = money_customers.approved_customer(("USD",))
    customer_id = customer["id"]
    destination = funding.active_account(customer_id, "USD")["id"]
    failing = _pull(
        quotes, customer_id, destination, external_accounts.failing_external_account(customer_id)
    )
    failed = transaction_history.wait_for_transaction(
        customer_id,
        failing["transactionId"],
        _final,
        why="in the sandbox every transfer settles at once, in success or failure (§4 Sandbox "
        "behaviours): a pull from the failing identifier ends COMPLETED or FAILED",
    )
    check(
        failed.get("status") == "FAILED" and bool(failed.get("failureReason")),
        SANDBOX_CLAUSE,
        "a pull source's identifier selects its scenario as a payout destination's does: a "
        "pull from the identifier whose payouts fail fails, with a failureReason",
        expected="FAILED with failureReason",
        observed={k: failed.get(k) for k in ("status", "failureReason")},
        # FAILED without one breaks the reason's rule; not FAILED, the scenario (no rule of its own)
        requirement="TRANSACTION-FAILURE-REASON" if failed.get("status") == "FAILED" else None,
    )
    balances = funding.account_balances(customer_id, destination)
    check(
        (balances.available, balances.total) == (0, 0),
        SANDBOX_CLAUSE,
        "a failed pull moves no money: the internal destination is not credited",
        expected={"available": 0, "total": 0},
        observed={"available": balances.available, "total": balances.total},
    )
    timeout = external_accounts.external_account(customer_id, suffix="005")
    stuck = _pull(quotes, customer_id, destination, timeout)
    ordinary = _pull(
        quotes, customer_id, destination, external_accounts.external_account(customer_id)
    )
    transaction_history.wait_for_transaction(
        customer_id,
        ordinary["transactionId"],
        _final,
        why="in the sandbox every transfer settles at once (§4 Sandbox behaviours): an ordinary "
        "pull ends COMPLETED or FAILED",
    )
    status = (transaction_history.transaction(customer_id, stuck["transactionId"]) or {}).get(
        "status"
    )
    check(
        status not in ("COMPLETED", "FAILED"),
        SANDBOX_CLAUSE,
        "a pull source whose identifier ends in 005 gives a timeout: the transfer does not "
        "settle at once (an ordinary pull made after it has settled)",
        expected="not yet COMPLETED or FAILED",
        observed=status,
        requirement="SANDBOX-TIMEOUT-005",
    )
