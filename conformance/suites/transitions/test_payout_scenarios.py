"""§4 Sandbox behaviours — payout scenarios whose outcomes the interface leaves open: an
identifier ending in 003 gives a slow payment, a ``1xx`` suffix triggers beneficiary-name
verification outcomes.

What is stated still binds them: only timeout scenarios (005) do not settle, so a slow
payment ends COMPLETED or FAILED; a FAILED transaction names its ``failureReason`` and is
refunded automatically, so the money reconciles. How slow, and which ``1xx`` outcome, are
recorded as advisories.
"""

from __future__ import annotations

import time

import pytest

from conformance.contract import clauses
from conformance.contract.failures import check
from conformance.payments.transaction_history import refund_outcome

pytestmark = [pytest.mark.resource("Transaction"), pytest.mark.writes]

CLAUSE = clauses.SANDBOX_BEHAVIOURS
AMOUNT = 10_000
NAME_SUFFIXES = ("100", "101", "102")


@pytest.fixture(scope="module")
def wallet(funding):
    return funding.wallet(("USD",))


def _reconciled(funding, profile, wallet, before, transactions):
    """The source lost exactly what COMPLETED transactions sent (FAILED ones refunded)."""
    __tracebackhide__ = True
    status_name = profile.field_name("refund_status")
    kept = sum(
        t["sentAmount"]["amount"] if isinstance(t.get("sentAmount"), dict) else 0
        for t in transactions
        if t.get("status") == "COMPLETED"
        or (t.get("status") == "FAILED" and refund_outcome(t, status_name) == "FAILED")
    )
    after = funding.account_balances(wallet.customer_id, wallet.sources["USD"]["id"])
    check(
        before.total - after.total == kept,
        clauses.TRANSACTION,
        "money reconciles: the source lost what settled payouts sent, and a failed payout's "
        "debit is refunded automatically",
        expected=kept,
        observed=before.total - after.total,
    )


@pytest.mark.starts_early("slow_payout_under_way")
@pytest.mark.requirement("SANDBOX-INSTANT-SETTLEMENT")
def test_a_slow_payment_to_a_003_identifier_still_settles(
    funding, transaction_history, profile, slow_payout_under_way, advisory
):
    """The payout is executed when the run starts and this test runs last, so the wait for
    it to settle overlaps with the rest of the run."""
    payout = slow_payout_under_way
    wallet, executed, early = payout["wallet"], payout["executed"], payout["early"]
    transaction = transaction_history.settled(wallet.customer_id, executed["transactionId"])
    advisory(
        f"{CLAUSE}: a payout to an identifier ending in 003 was {early.get('status')} right "
        f"after execute and {transaction.get('status')} when checked "
        f"{time.monotonic() - payout['started']:.1f} s later (how slow is not shown)"
    )
    check(
        transaction.get("status") in ("COMPLETED", "FAILED"),
        CLAUSE,
        "a slow payment (003) is not a timeout: it settles, COMPLETED or FAILED",
        observed=transaction.get("status"),
    )
    _reconciled(funding, profile, wallet, payout["before"], [transaction])


@pytest.mark.requirement("SANDBOX-INSTANT-SETTLEMENT", "TRANSACTION-FAILURE-REASON")
def test_beneficiary_name_outcomes_end_in_a_stated_state(
    external_accounts, funding, quotes, transaction_history, profile, wallet, advisory
):
    before = funding.account_balances(wallet.customer_id, wallet.sources["USD"]["id"])
    settled = []
    for suffix in NAME_SUFFIXES:
        destination = external_accounts.external_account(wallet.customer_id, suffix=suffix)
        executed = quotes.pay(wallet.sources["USD"]["id"], destination["id"], AMOUNT)
        transaction = transaction_history.settled(wallet.customer_id, executed["transactionId"])
        status, reason = transaction.get("status"), transaction.get("failureReason")
        advisory(f"{CLAUSE}: beneficiary-name scenario {suffix} ended {status} ({reason})")
        check(
            status == "COMPLETED" or (status == "FAILED" and isinstance(reason, str) and reason),
            clauses.TRANSACTION,
            f"a payout to a {suffix} identifier ends COMPLETED, or FAILED naming its failureReason",
            observed={"status": status, "failureReason": reason},
        )
        settled.append(transaction)
    _reconciled(funding, profile, wallet, before, settled)
