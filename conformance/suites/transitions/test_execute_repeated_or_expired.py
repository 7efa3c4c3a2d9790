"""§3 Quote and transaction, §7 Errors — executes that must not move money: a second execute
of an executed quote, and an execute after ``expiresAt`` (QUOTE_EXPIRED).

The interface gives 409 for an execute repeated on a quote awaiting authorization; for a
quote already executed it names no answer (execute moves a PENDING quote only), so any
answer passes as long as nothing is debited again and no other transaction starts (the
reference answers 409; anything else is an advisory).
"""

from __future__ import annotations

import pytest

from conformance.contract import clauses
from conformance.contract.failures import check
from conformance.exchange.assertions import error_code, has_code

pytestmark = [pytest.mark.resource("Quote"), pytest.mark.writes]

CLAUSE = clauses.QUOTE_AND_TRANSACTION_STATES
ERRORS_CLAUSE = clauses.ERRORS
AMOUNT = 15_000


@pytest.fixture(scope="module")
def wallet(funding):
    return funding.wallet(("USD",))


@pytest.mark.requirement("QUOTE-EXECUTE-DEBITS-SOURCE", "QUOTE-EXECUTE-SAME-TRANSACTION-ID")
def test_a_second_execute_debits_nothing(funding, quotes, transaction_history, wallet, advisory):
    corridor = wallet.corridor()
    before = funding.account_balances(wallet.customer_id, corridor.source_id)
    quote = quotes.quote(corridor.body(amount=AMOUNT))
    quotes.execute_ok(quote["id"])
    again = quotes.execute(quote["id"])
    if 200 <= again.status < 300:  # not shown: an idempotent answer passes if nothing moves
        check(
            again.json.get("transactionId") == quote["transactionId"],
            CLAUSE,
            "an executed quote keeps its one transaction: a repeated execute starts no other",
            expected=quote["transactionId"],
            observed=again.json.get("transactionId"),
            exchange=again.exchange,
            requirement="QUOTE-EXECUTE-SAME-TRANSACTION-ID",
        )
    if again.status != 409:
        advisory(
            f"{ERRORS_CLAUSE}: a second execute of an executed quote answered {again.status} "
            "(the reference answers 409; the interface names no status for it)"
        )
    transaction_history.completed(wallet.customer_id, quote["transactionId"])
    after = funding.account_balances(wallet.customer_id, corridor.source_id)
    check(
        before.available - after.available == quote["totalSendingAmount"],
        CLAUSE,
        "execution debits the source once: after a second execute the balance has dropped "
        "by one sending amount",
        expected=quote["totalSendingAmount"],
        observed=before.available - after.available,
        requirement="QUOTE-EXECUTE-DEBITS-SOURCE",
    )


@pytest.mark.requirement("QUOTE-EXPIRED-ERROR", "QUOTE-EXPIRES")
@pytest.mark.starts_early("quote_left_to_expire")
def test_an_expired_quote_is_not_executed(
    funding, quotes, transaction_history, quote_left_to_expire, client, schema_registry
):
    """Waits until the target's clock has passed expiresAt (its Date header, or the time
    since the quote's creation), bounded by expiresAt plus a margin; the quote is made when
    the run starts and this test runs last, so the wait overlaps with the rest of the run
    (the embedded sandbox's quotes live 3 s)."""
    wallet, corridor, before, quote = quote_left_to_expire
    quotes.wait_past(quote, what=f"quote {quote.get('id')} to expire")
    response = quotes.execute(quote["id"])
    check(
        400 <= response.status < 500 and has_code(response, "QUOTE_EXPIRED"),
        ERRORS_CLAUSE,
        "executing a quote after its expiresAt fails with QUOTE_EXPIRED",
        expected="a 4xx with code QUOTE_EXPIRED",
        observed=(response.status, error_code(response) or response.content[:200]),
        exchange=response.exchange,
        requirement="QUOTE-EXPIRED-ERROR",
    )
    after = funding.account_balances(wallet.customer_id, corridor.source_id)
    check(
        after == before,
        ERRORS_CLAUSE,
        "an expired quote is not executed: nothing is debited",
        expected=before,
        observed=after,
        requirement="QUOTE-EXPIRED-ERROR",
    )
    transaction = transaction_history.transaction(wallet.customer_id, quote["transactionId"])
    check(
        transaction is None or transaction.get("status") not in ("PROCESSING", "COMPLETED"),
        CLAUSE,
        "a quote not executed before expiresAt carries no money: its transaction is not processed",
        observed=None if transaction is None else transaction.get("status"),
        requirement="QUOTE-EXPIRED-ERROR",
    )
    read = client.get(f"/quotes/{quote['id']}", validate=False)
    if read.status == 200:  # reading a quote back is not shown; check it where served
        problems = schema_registry.violations("quote", read.json)
        check(
            not problems and read.json.get("status") == "EXPIRED",
            CLAUSE,
            "a quote not executed before expiresAt becomes EXPIRED",
            expected="EXPIRED",
            observed=read.json.get("status") if not problems else [p.message for p in problems],
            exchange=read.exchange,
            requirement="QUOTE-EXPIRES",
        )
