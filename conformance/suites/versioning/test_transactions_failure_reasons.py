"""§9 Versioning — the failure reasons EXECUTION_FAILED_POST_DEBIT, SETTLEMENT_FAILED, TIMEOUT
and MANUAL_REFUND no longer exist: a failed payout reports none of them."""

from __future__ import annotations

import pytest

from conformance.contract import clauses
from conformance.contract.failures import check
from conformance.contract.markers import needs_adapter_hook
from conformance.ground import hookspecs

pytestmark = [
    pytest.mark.resource("Transaction"),
    pytest.mark.writes,
    needs_adapter_hook(hookspecs.pytest_conformance_failing_account_number),
]

REMOVED = ("EXECUTION_FAILED_POST_DEBIT", "SETTLEMENT_FAILED", "TIMEOUT", "MANUAL_REFUND")


@pytest.mark.requirement("VERSION-REMOVED-FAILURE-REASONS")
def test_a_failed_payout_reports_no_removed_failure_reason(
    external_accounts, funding, quotes, transaction_history
):
    wallet = funding.wallet(("USD",))
    failing = external_accounts.failing_external_account(wallet.customer_id)
    executed = quotes.pay(wallet.sources["USD"]["id"], failing["id"], 10_000)
    transaction = transaction_history.settled(wallet.customer_id, executed["transactionId"])
    check(
        transaction.get("failureReason") not in REMOVED,
        clauses.VERSIONING,
        "the failure reasons EXECUTION_FAILED_POST_DEBIT, SETTLEMENT_FAILED, TIMEOUT and "
        "MANUAL_REFUND were removed (collapsed into QUOTE_EXECUTION_FAILED or the refund object)",
        observed=transaction.get("failureReason"),
    )
