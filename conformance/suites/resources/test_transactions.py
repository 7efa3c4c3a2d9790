"""§2 Resources and their fields — Transaction, as GET /transactions lists the transactions of
an executed quote: one that completes and one whose payout fails (adapter).

The client checks each listed transaction against the Transaction schema (amount objects,
a failureReason with FAILED and none with COMPLETED, no removed reason); these tests check
that the transaction describes the quote it carries.
"""

from __future__ import annotations

import pytest

from conformance.contract import clauses
from conformance.contract.failures import check
from conformance.contract.markers import needs_adapter_hook
from conformance.ground import hookspecs
from conformance.payments.transaction_history import amount_of

pytestmark = [pytest.mark.resource("Transaction"), pytest.mark.writes]

CLAUSE = clauses.TRANSACTION
STATUSES = {"PENDING", "PROCESSING", "COMPLETED", "FAILED", "EXPIRED"}
DESCRIPTION = "Invoice 2025-204"


@pytest.fixture(scope="module")
def paid(money_customers, funding, quotes, transaction_history):
    """(customer, quote, its settled transaction) of a payment that completed."""
    wallet = funding.wallet(money_customers.currencies())
    corridor = wallet.corridors()[-1]
    quote = quotes.quote(corridor.body("SENDING", 76_543, description=DESCRIPTION))
    quotes.execute_ok(quote["id"])
    return (
        wallet.customer,
        quote,
        transaction_history.completed(wallet.customer_id, quote["transactionId"]),
    )


@pytest.mark.requirement(
    "TRANSACTION-STATUS-VALUES",
    "TRANSACTION-OUTGOING-DIRECTION",
    "TRANSACTION-REFERENCE-FIELDS",
    "TRANSACTION-FAILURE-REASON-ONLY-FAILED",
)
def test_a_transaction_names_its_customer_quote_and_kind(paid):
    """TRANSACTION-FAILURE-REASON-ONLY-FAILED is held by the Transaction schema on every
    read of the completed transaction (the client validates each answer and event)."""
    customer, quote, transaction = paid
    check(
        transaction.get("status") in STATUSES,
        CLAUSE,
        "a transaction's status is one of PENDING, PROCESSING, COMPLETED, FAILED, EXPIRED",
        observed=transaction.get("status"),
        requirement="TRANSACTION-STATUS-VALUES",
    )
    check(
        (transaction.get("type"), transaction.get("direction")) == ("OUTGOING", "DEBIT"),
        CLAUSE,
        "an outgoing payment has type OUTGOING and direction DEBIT",
        expected=("OUTGOING", "DEBIT"),
        observed=(transaction.get("type"), transaction.get("direction")),
        requirement="TRANSACTION-OUTGOING-DIRECTION",
    )
    expected = {
        "customerId": customer["id"],
        "platformCustomerId": customer.get("platformCustomerId"),
        "quoteId": quote["id"],
        "exchangeRate": quote.get("exchangeRate"),
        "description": DESCRIPTION,
    }
    check(
        {k: transaction.get(k) for k in expected} == expected
        and transaction.get("createdAt")
        and transaction.get("settledAt"),
        CLAUSE,
        "a transaction carries its customer's customerId and platformCustomerId, its quoteId, "
        "exchangeRate and description, createdAt and, once settled, settledAt",
        expected={**expected, "createdAt": "<timestamp>", "settledAt": "<timestamp>"},
        observed={k: transaction.get(k) for k in [*expected, "createdAt", "settledAt"]},
        requirement="TRANSACTION-REFERENCE-FIELDS",
    )


@pytest.mark.requirement(
    "TRANSACTION-SOURCE-DESTINATION",
    "TRANSACTION-AMOUNT-OBJECTS",
    "TRANSACTION-PLATFORM-FEES",
    "COMMON-CURRENCY-DECIMALS",
)
def test_a_transaction_carries_the_parties_and_amounts_of_its_quote(paid, advisory):
    _, quote, transaction = paid
    for side in ("source", "destination"):
        sent, got = quote.get(side) or {}, transaction.get(side) or {}
        check(
            {k: got.get(k) for k in sent if k != "paymentRail"}
            == {k: v for k, v in sent.items() if k != "paymentRail"},
            CLAUSE,
            f"a transaction's {side} has the same shape as on its quote",
            expected=sent,
            observed=got,
            requirement="TRANSACTION-SOURCE-DESTINATION",
        )
    for name, total, currency in (
        ("sentAmount", "totalSendingAmount", "sendingCurrency"),
        ("receivedAmount", "totalReceivingAmount", "receivingCurrency"),
    ):
        value = transaction.get(name) or {}
        code = (quote.get(currency) or {}).get("code")
        decimals = (quote.get(currency) or {}).get("decimals")
        observed = (
            value.get("amount"),
            (value.get("currency") or {}).get("code"),
            (value.get("currency") or {}).get("decimals"),
        )
        check(
            observed == (quote.get(total), code, decimals),
            CLAUSE,
            f"{name} is {{amount, currency{{code, decimals, ...}}}}: the quote's {total} in "
            f"its {currency}",
            expected=(quote.get(total), code, decimals),
            observed=observed,
            requirement="TRANSACTION-AMOUNT-OBJECTS",
        )
    fees = amount_of(transaction.get("platformFees"))
    check(
        fees is not None and fees >= 0,
        CLAUSE,
        "an outgoing transaction carries platformFees, the platform's own fee on it",
        observed=transaction.get("platformFees"),
        requirement="TRANSACTION-PLATFORM-FEES",
    )
    if fees != quote.get("platformFeesIncluded"):
        advisory(
            f"{CLAUSE}: platformFees {fees} differs from the quote's platformFeesIncluded "
            f"{quote.get('platformFeesIncluded')}"
        )


@needs_adapter_hook(hookspecs.pytest_conformance_failing_account_number)
@pytest.mark.requirement("TRANSACTION-FAILURE-REASON", "TRANSACTION-REFUND-OBJECT")
def test_a_failed_transaction_states_its_failure_reason_and_refund(
    external_accounts, funding, quotes, transaction_history, profile
):
    wallet = funding.wallet(("USD",))
    failing = external_accounts.failing_external_account(wallet.customer_id)
    executed = quotes.pay(wallet.sources["USD"]["id"], failing["id"], 12_345)
    transaction = transaction_history.settled(wallet.customer_id, executed["transactionId"])
    check(
        transaction.get("status") == "FAILED" and isinstance(transaction.get("failureReason"), str),
        CLAUSE,
        "a FAILED transaction carries its failureReason",
        observed={k: transaction.get(k) for k in ("status", "failureReason")},
        hint="the destination's number comes from the adapter hook "
        "pytest_conformance_failing_account_number",
        # FAILED without one breaks the reason's rule; not FAILED, the adapter's failing payout
        requirement="TRANSACTION-FAILURE-REASON" if transaction.get("status") == "FAILED" else None,
    )
    names = (profile.field_name("refund_status"), profile.field_name("refund_reference"))
    refund = transaction.get("refund")
    check(
        isinstance(refund, dict) and all(refund.get(n) for n in names),
        CLAUSE,
        f"a refunded transaction carries refund, an object tracking its status and reference "
        f"(names from the profile: {names})",
        observed=refund,
        requirement="TRANSACTION-REFUND-OBJECT",
    )
