"""§3 Quote and transaction — when a quote's rate is refused at execution nothing is
exchanged, and a new quote is the recovery.

The adapter has the target refuse the rate (``pytest_conformance_refuse_quote_rate``; no
trigger is shown). Nothing exchanged: the source keeps both balances, the quote's
transaction is not processed, and no OUTGOING_PAYMENT event reports it. The new quote for
the same transfer executes and settles; its events arriving first bounds the wait for any
about the refused one.
"""

from __future__ import annotations

import pytest

from conformance.contract import clauses
from conformance.contract.failures import check
from conformance.contract.markers import needs_adapter_hook
from conformance.payments.money_limits import REFUSE_RATE_HOOK, refuse_rate

pytestmark = [pytest.mark.resource("Quote"), pytest.mark.writes]

CLAUSE = clauses.QUOTE_AND_TRANSACTION_STATES
AMOUNT = 30_000


@pytest.fixture(scope="module")
def wallet(money_customers, funding):
    return funding.wallet(money_customers.currencies())


@needs_adapter_hook(REFUSE_RATE_HOOK)
@pytest.mark.requirement("QUOTE-RATE-UNAVAILABLE-NOTHING-EXCHANGED")
def test_a_refused_rate_exchanges_nothing_and_a_new_quote_recovers(
    funding, quotes, transaction_history, wallet, adapter, payment_events
):
    corridor = wallet.corridors()[-1]
    before = funding.account_balances(wallet.customer_id, corridor.source_id)
    quote = quotes.quote(corridor.body("SENDING", AMOUNT))
    refuse_rate(adapter, quote["id"])
    answer = quotes.execute(quote["id"])
    after = funding.account_balances(wallet.customer_id, corridor.source_id)
    check(
        after == before,
        CLAUSE,
        "a quote whose rate is refused at execution exchanges nothing: the source keeps "
        "both balances",
        expected=before,
        observed={"balances": after, "execute answered": answer.status},
        exchange=answer.exchange,
    )
    refused = transaction_history.transaction(wallet.customer_id, quote["transactionId"])
    check(
        refused is None or refused.get("status") not in ("PROCESSING", "COMPLETED"),
        CLAUSE,
        "a quote whose rate is refused carries no money: its transaction is not processed",
        observed=None if refused is None else refused.get("status"),
    )
    recovery = quotes.pay(corridor.source_id, corridor.destination_id, AMOUNT)
    check(
        recovery.get("transactionId") != quote["transactionId"],
        CLAUSE,
        "a new quote is the recovery from a refused rate: it carries its own transaction",
        observed=recovery.get("transactionId"),
    )
    transaction_history.completed(wallet.customer_id, recovery["transactionId"])
    payment_events.wait(
        recovery["transactionId"],
        ["COMPLETED"],
        why="the new quote's payment settles (OUTGOING_PAYMENT.COMPLETED)",
    )
    reported = [d.event_type for d in payment_events.about(quote["transactionId"])]
    check(
        not reported,
        CLAUSE,
        "nothing is exchanged for a refused rate: no OUTGOING_PAYMENT event reports its "
        "transaction",
        expected=[],
        observed=reported,
    )
