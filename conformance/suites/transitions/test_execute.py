"""§3 Quote and transaction — a quote from creation to settlement: created PENDING with its
transaction, executed (the source debited at once, the same transaction), and the
transaction settling PROCESSING then COMPLETED, or FAILED and refunded.

The transitions are observed on the quote, on the transaction (GET /transactions) and in
the OUTGOING_PAYMENT.* events the webhook sink receives. Waits are bounded by the profile's
``webhook_timeout``: the sandbox settles at once, but the interface gives no time.
"""

from __future__ import annotations

import re

import pytest

from conformance.contract import clauses
from conformance.contract.failures import check
from conformance.contract.markers import needs_adapter_hook
from conformance.exchange.assertions import required_json
from conformance.ground import hookspecs
from conformance.payments.transaction_history import refund_outcome

pytestmark = [pytest.mark.resource("Quote"), pytest.mark.writes]

CLAUSE = clauses.QUOTE_AND_TRANSACTION_STATES
UUID = r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}"
AMOUNT = 25_000


@pytest.fixture(scope="module")
def wallet(funding):
    return funding.wallet(("USD",))


@pytest.mark.requirement("QUOTE-CREATE-PENDING", "QUOTE-CREATE-TRANSACTION-ID")
def test_a_new_quote_is_pending_and_names_its_transaction(quotes, wallet):
    quote = quotes.quote(wallet.corridor().body(amount=AMOUNT))
    check(
        quote.get("status") == "PENDING",
        CLAUSE,
        "POST /quotes without immediatelyExecute creates the quote PENDING",
        expected="PENDING",
        observed=quote.get("status"),
        requirement="QUOTE-CREATE-PENDING",
    )
    check(
        re.fullmatch(rf"Transaction:{UUID}", str(quote.get("transactionId"))),
        CLAUSE,
        "a new quote carries the transactionId of the transaction that will carry the money",
        expected="Transaction:<uuid>",
        observed=quote.get("transactionId"),
        requirement="QUOTE-CREATE-TRANSACTION-ID",
    )


@pytest.mark.requirement(
    "QUOTE-EXECUTE-PROCESSING",
    "QUOTE-EXECUTE-DEBITS-SOURCE",
    "QUOTE-EXECUTE-SAME-TRANSACTION-ID",
    "KYC-APPROVED-UNLOCKS-MONEY",
)
def test_executing_a_quote_debits_the_source_at_once_and_keeps_its_transaction(
    funding, quotes, transaction_history, wallet, advisory
):
    corridor = wallet.corridor()
    before = funding.account_balances(wallet.customer_id, corridor.source_id)
    quote = quotes.quote(corridor.body(amount=AMOUNT))
    executed = quotes.execute_ok(quote["id"])
    debited = funding.account_balances(wallet.customer_id, corridor.source_id)
    check(
        executed.get("status") in ("PROCESSING", "COMPLETED"),
        clauses.QUOTES_ENDPOINTS + " — POST /quotes/{quoteId}/execute",
        "execute answers the Quote with status PROCESSING",
        expected="PROCESSING",
        observed=executed.get("status"),
        requirement="QUOTE-EXECUTE-PROCESSING",
    )
    if executed.get("status") == "COMPLETED":
        advisory(f"{CLAUSE}: execute answered the quote COMPLETED (the sandbox settled at once)")
    check(
        executed.get("transactionId") == quote.get("transactionId"),
        CLAUSE,
        "an executed quote keeps the transactionId it carried at creation",
        expected=quote.get("transactionId"),
        observed=executed.get("transactionId"),
        requirement="QUOTE-EXECUTE-SAME-TRANSACTION-ID",
    )
    check(
        before.available - debited.available == quote["totalSendingAmount"],
        CLAUSE,
        "execution debits the source immediately: the available balance drops by the "
        "quote's totalSendingAmount",
        expected=quote["totalSendingAmount"],
        observed=before.available - debited.available,
        requirement="QUOTE-EXECUTE-DEBITS-SOURCE",
    )
    transaction = transaction_history.completed(wallet.customer_id, quote["transactionId"])
    after = funding.account_balances(wallet.customer_id, corridor.source_id)
    check(
        before.total - after.total == quote["totalSendingAmount"],
        CLAUSE,
        "a settled payment has left the source: its total balance dropped by the sending "
        "amount, once",
        expected=quote["totalSendingAmount"],
        observed={"debited": before.total - after.total, "transaction": transaction.get("status")},
        requirement="QUOTE-EXECUTE-DEBITS-SOURCE",
    )


@pytest.mark.requirement(
    "TRANSACTION-PENDING-TO-PROCESSING",
    "TRANSACTION-PROCESSING-TO-COMPLETED",
    "SANDBOX-INSTANT-SETTLEMENT",
)
def test_a_payment_settles_processing_then_completed(
    quotes, transaction_history, wallet, payment_events
):
    corridor = wallet.corridor()
    executed = quotes.pay(corridor.source_id, corridor.destination_id, AMOUNT)
    transaction = transaction_history.completed(wallet.customer_id, executed["transactionId"])
    check(
        bool(transaction.get("settledAt")),
        clauses.TRANSACTION,
        "a settled transaction carries settledAt",
        observed={k: transaction.get(k) for k in ("status", "settledAt")},
    )
    events = payment_events.wait(
        executed["transactionId"],
        ["PROCESSING", "COMPLETED"],
        why="a transaction accepted by the rail (PROCESSING) and settled (COMPLETED)",
    )
    payment_events.check(events)


@needs_adapter_hook(hookspecs.pytest_conformance_failing_account_number)
@pytest.mark.requirement(
    "TRANSACTION-PROCESSING-TO-FAILED",
    "TRANSACTION-FAILURE-REASON",
    "REFUND-OUTGOING-LIFECYCLE",
    "REFUND-QUOTE-EXECUTION-FAILED-DEBIT-RETURNED",
    "TRANSACTION-REFUND-OBJECT",
)
def test_a_failed_payout_fails_and_its_debit_is_refunded(
    external_accounts,
    funding,
    quotes,
    transaction_history,
    profile,
    wallet,
    payment_events,
):
    failing = external_accounts.failing_external_account(wallet.customer_id)
    source = wallet.sources["USD"]["id"]
    before = funding.account_balances(wallet.customer_id, source)
    executed = quotes.pay(source, failing["id"], AMOUNT)
    transaction = transaction_history.settled(wallet.customer_id, executed["transactionId"])
    failed = transaction.get("status") == "FAILED"
    check(
        failed and transaction.get("failureReason"),
        CLAUSE,
        "a payout that fails moves its transaction to FAILED with a failureReason",
        expected="FAILED with failureReason",
        observed={k: transaction.get(k) for k in ("status", "failureReason")},
        hint="the destination's number comes from the adapter hook "
        "pytest_conformance_failing_account_number",
        requirement="TRANSACTION-FAILURE-REASON" if failed else "TRANSACTION-PROCESSING-TO-FAILED",
    )
    refund = refund_outcome(transaction, profile.field_name("refund_status"))
    events = payment_events.wait(
        executed["transactionId"],
        ["PROCESSING", "FAILED", "REFUND_PENDING", ("REFUND_COMPLETED", "REFUND_FAILED")],
        why="a failed payout (FAILED) whose refund starts automatically",
    )
    payment_events.check(events)
    after = funding.account_balances(wallet.customer_id, source)
    if refund == "COMPLETED":
        check(
            after == before,
            clauses.TRANSACTION,
            "the amount a failed payment debited is refunded automatically, in full",
            expected=before,
            observed=after,
            requirement="REFUND-QUOTE-EXECUTION-FAILED-DEBIT-RETURNED",
        )


@pytest.mark.requirement("QUOTE-IMMEDIATE-EXECUTE-COMPLETED", "QUOTE-EXECUTE-DEBITS-SOURCE")
def test_immediate_execution_creates_and_executes_in_one_request(
    funding, quotes, transaction_history, wallet
):
    corridor = wallet.corridor()
    before = funding.account_balances(wallet.customer_id, corridor.source_id)
    response = quotes.create_quote(corridor.body(amount=AMOUNT, immediatelyExecute=True))
    statement = (
        "POST /quotes with immediatelyExecute true from an internal account creates and "
        "executes the quote in one request and returns it COMPLETED"
    )
    quote = required_json(
        response, CLAUSE, statement, status=201, requirement="QUOTE-IMMEDIATE-EXECUTE-COMPLETED"
    )
    check(
        quote.get("status") == "COMPLETED",
        CLAUSE,
        statement,
        expected="status COMPLETED",
        observed=(response.status, quote.get("status")),
        exchange=response.exchange,
        requirement="QUOTE-IMMEDIATE-EXECUTE-COMPLETED",
    )
    transaction_history.completed(wallet.customer_id, quote["transactionId"])
    after = funding.account_balances(wallet.customer_id, corridor.source_id)
    check(
        before.available - after.available == quote["totalSendingAmount"],
        CLAUSE,
        "an immediately executed quote debits its source by the sending amount",
        expected=quote["totalSendingAmount"],
        observed=before.available - after.available,
        requirement="QUOTE-EXECUTE-DEBITS-SOURCE",
    )


@pytest.mark.requirement("SANDBOX-TIMEOUT-005", "SANDBOX-INSTANT-SETTLEMENT")
def test_a_payout_to_a_timeout_account_does_not_settle_at_once(
    external_accounts, funding, quotes, transaction_history
):
    """Paid next to an ordinary payout: once that one has settled, the 005 one has not. On
    a customer of its own, whose balance the unsettled payout holds."""
    wallet = funding.wallet(("USD",))
    source = wallet.sources["USD"]["id"]
    slow = external_accounts.external_account(wallet.customer_id, suffix="005")
    stuck = quotes.pay(source, slow["id"], AMOUNT)
    ordinary = quotes.pay(source, wallet.destinations["USD"]["id"], AMOUNT)
    transaction_history.settled(wallet.customer_id, ordinary["transactionId"])
    transaction = transaction_history.transaction(wallet.customer_id, stuck["transactionId"])
    status = (transaction or {}).get("status")
    check(
        status not in ("COMPLETED", "FAILED"),
        clauses.SANDBOX_BEHAVIOURS,
        "a payout destination whose identifier ends in 005 gives a timeout: the transfer does "
        "not settle at once",
        expected="not yet COMPLETED or FAILED",
        observed=status,
        requirement="SANDBOX-TIMEOUT-005",
    )
