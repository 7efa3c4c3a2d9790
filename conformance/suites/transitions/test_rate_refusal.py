"""§3 Quote and transaction — when a quote's rate is refused at execution nothing is
exchanged, and a new quote is the recovery.

The adapter has the target refuse the rate (``pytest_conformance_refuse_quote_rate``; no
trigger is shown). Nothing exchanged: the source keeps both balances and the quote's
transaction is not processed. The new quote for
the same transfer executes and settles, after which the source has paid for it alone:
money moved is read from balances, not from which events fire (an event about the refused
quote's transaction, such as OUTGOING_PAYMENT.FAILED, moves no money) nor their order.
"""

from __future__ import annotations

import pytest

from conformance.contract import clauses
from conformance.contract.failures import check
from conformance.contract.markers import needs_adapter_hook
from conformance.payments.funding import Balances
from conformance.payments.money_limits import REFUSE_RATE_HOOK, refuse_rate
from conformance.payments.transaction_history import amount_of

pytestmark = [pytest.mark.resource("Quote"), pytest.mark.writes]

CLAUSE = clauses.QUOTE_AND_TRANSACTION_STATES
AMOUNT = 30_000


@pytest.fixture(scope="module")
def wallet(money_customers, funding):
    return funding.wallet(money_customers.currencies())


@needs_adapter_hook(REFUSE_RATE_HOOK)
@pytest.mark.requirement("QUOTE-RATE-UNAVAILABLE-NOTHING-EXCHANGED")
def test_a_refused_rate_exchanges_nothing_and_a_new_quote_recovers(
    funding, quotes, transaction_history, wallet, adapter
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
    # Money moved is judged by balances, never by which events were sent nor by the order
    # they arrive in (§6 shows neither): once the recovery settled, the source has paid the
    # recovery's amount and nothing for the refused quote.
    sent = amount_of(recovery.get("totalSendingAmount"))
    settled = funding.account_balances(wallet.customer_id, corridor.source_id)
    assert sent is not None, "the client checked the quote's schema"
    expected = Balances(before.available - sent, before.total - sent)
    check(
        settled == expected,
        CLAUSE,
        "nothing is exchanged for a refused rate: once the new quote settles, the source has "
        "paid the new quote's totalSendingAmount and nothing more",
        expected=expected,
        observed=settled,
    )
