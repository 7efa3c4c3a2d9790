"""§4 sandbox — ``POST /sandbox/send {quoteId, currencyCode, currencyAmount?}`` pays a
just-in-time quote: it answers the Transaction, takes the amount from the quote when none
is given, and insists on the funding source's currency.

Each test pays a just-in-time quote of its own customer (§2 Quote source
``REALTIME_FUNDING``) into that customer's internal account.
"""

from __future__ import annotations

import pytest

from conformance.contract.failures import check
from conformance.payments.transaction_history import amount_of
from conformance.payments.transfer_flows import SEND_CLAUSE

pytestmark = [pytest.mark.resource("Sandbox"), pytest.mark.writes]

OTHER_CURRENCY = {"USD": "EUR"}


@pytest.mark.requirement("SANDBOX-SEND", "SANDBOX-SEND-AMOUNT-DEFAULT")
def test_sending_without_an_amount_pays_the_quote_and_returns_its_transaction(transfers):
    jit = transfers.just_in_time("USD")
    transaction = transfers.send_ok(jit.quote_id, "USD")
    # §3 says a paid just-in-time quote has "transaction created": the quote's own
    # transactionId or a transaction naming the quote both read as that transaction
    check(
        transaction.get("id") == jit.transaction_id or transaction.get("quoteId") == jit.quote_id,
        SEND_CLAUSE,
        "POST /sandbox/send returns the Transaction of the quote it pays (the quote's "
        "transactionId, or a transaction whose quoteId is the quote)",
        expected=f"id {jit.transaction_id} or quoteId {jit.quote_id}",
        observed={"id": transaction.get("id"), "quoteId": transaction.get("quoteId")},
    )
    sent = amount_of(transaction.get("sentAmount"))
    check(
        sent == jit.quote.get("totalSendingAmount"),
        SEND_CLAUSE,
        "without currencyAmount the amount is derived from the quote: the transaction sends "
        "the quote's totalSendingAmount",
        expected=jit.quote.get("totalSendingAmount"),
        observed=transaction.get("sentAmount"),
    )


@pytest.mark.requirement("SANDBOX-SEND-CURRENCY-MATCH")
def test_a_currency_other_than_the_funding_source_s_is_refused(transfers):
    jit = transfers.just_in_time("USD")
    response = transfers.send(jit.quote_id, OTHER_CURRENCY["USD"])
    check(
        400 <= response.status < 500,
        SEND_CLAUSE,
        "currencyCode must equal the funding-source currency: a payment in EUR for a USD "
        "just-in-time quote is refused",
        expected="4xx",
        observed=(response.status, response.content[:300]),
        exchange=response.exchange,
    )
    quote = transfers.quote_now(jit.quote_id)
    check(
        quote.get("status") == "PENDING",
        SEND_CLAUSE,
        "a refused POST /sandbox/send leaves the quote unpaid (PENDING)",
        expected="PENDING",
        observed=quote.get("status"),
    )
