"""§2 Transaction — a transaction held for compliance review states why in pendingReason.

No trigger is shown: the adapter names an external account number whose payouts are held
(``pytest_conformance_held_account_number``). While the transaction is held (``PENDING`` or
``PROCESSING``) its ``pendingReason`` is a non-empty string; the reason's values are not
shown.
"""

from __future__ import annotations

import pytest

from conformance.contract import clauses
from conformance.contract.failures import check, fail
from conformance.contract.markers import needs_adapter_hook
from conformance.exchange.list_pages import skip_unlisted
from conformance.payments.money_limits import HELD_ACCOUNT_HOOK, held_account_number

pytestmark = [pytest.mark.resource("Transaction"), pytest.mark.writes]

CLAUSE = clauses.TRANSACTION
HELD = ("PENDING", "PROCESSING")


@needs_adapter_hook(HELD_ACCOUNT_HOOK)
@pytest.mark.requirement("TRANSACTION-PENDING-REASON")
def test_a_transaction_held_for_compliance_review_states_why(
    external_accounts, funding, quotes, transaction_history, adapter
):
    wallet = funding.wallet(("USD",))
    number = held_account_number(adapter, "USD")
    held = external_accounts.external_account(wallet.customer_id, "USD", number=number)
    executed = quotes.pay(wallet.sources["USD"]["id"], held["id"], 12_345)
    listing = transaction_history.listing(wallet.customer_id)
    found = [t for t in listing.items if t.get("id") == executed["transactionId"]]
    transaction = found[0] if found else None
    if transaction is None:
        if not listing.complete:  # it may be on a page the suite cannot read
            skip_unlisted(listing, f"transaction {executed['transactionId']}")
        fail(
            CLAUSE,
            "an executed quote's transaction is listed by GET /transactions",
            expected=executed["transactionId"],
            observed="not listed",
        )
    if transaction.get("status") not in HELD:
        pytest.skip(
            f"the payout to the adapter's held account number is {transaction.get('status')}, "
            "not held; nothing to check"
        )
    reason = transaction.get("pendingReason")
    check(
        isinstance(reason, str) and reason.strip() != "",
        CLAUSE,
        "a transaction held for compliance review states why in pendingReason",
        expected="a non-empty string",
        observed={k: transaction.get(k) for k in ("status", "pendingReason")},
        hint=f"the destination's number comes from the adapter hook {HELD_ACCOUNT_HOOK.__name__}",
    )
