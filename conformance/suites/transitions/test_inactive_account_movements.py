"""§3 Internal account — FROZEN and CLOSED accounts cannot send or receive.

The account is frozen or closed by the adapter (no trigger is shown), then a new transfer
from it and a new transfer into it, from another account of the same customer, are tried.
The refusal's status and code are not shown: a refusal when quoting or when executing
both pass, as long as no balance changes; a transfer that moves money fails.
"""

from __future__ import annotations

import pytest

from conformance.accounts.states import (
    CLOSE_HOOK,
    FREEZE_HOOK,
    attempt_payment,
    change_state,
    expect_nothing_moved,
    expect_status,
)

pytestmark = [pytest.mark.resource("InternalAccount"), pytest.mark.writes]

# Ten USDC: well above any fee of a cross-currency quote into US cents.
USDC_AMOUNT = 10_000_000


@pytest.mark.parametrize(
    ("status", "hook"), [("FROZEN", FREEZE_HOOK), ("CLOSED", CLOSE_HOOK)], ids=["FROZEN", "CLOSED"]
)
@pytest.mark.requirement("INTERNAL-ACCOUNT-INACTIVE-NO-MOVEMENT")
def test_a_frozen_or_closed_account_neither_sends_nor_receives(
    funding, quotes, transaction_history, adapter, status, hook
):
    wallet = funding.wallet()
    customer_id = wallet.customer_id
    inactive, external = wallet.corridor().source_id, wallet.corridor().destination_id
    other = funding.active_account(customer_id, "USDC", "INTERNAL_CRYPTO")["id"]
    funding.fund_ok(other, 10 * USDC_AMOUNT)
    change_state(adapter, hook, inactive)
    expect_status(funding, customer_id, inactive, status, f"the account reads back {status}")
    before = {a: funding.account_balances(customer_id, a) for a in (inactive, other)}
    sent = attempt_payment(quotes, inactive, external)
    expect_nothing_moved(
        funding,
        transaction_history,
        customer_id,
        before,
        f"a {status} account cannot send: a transfer from it moves nothing",
        sent,
    )
    received = attempt_payment(quotes, other, inactive, USDC_AMOUNT)
    expect_nothing_moved(
        funding,
        transaction_history,
        customer_id,
        before,
        f"a {status} account cannot receive: a transfer into it from another account of "
        "its customer moves nothing",
        received,
    )
