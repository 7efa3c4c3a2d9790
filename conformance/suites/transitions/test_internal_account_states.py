"""§3 Internal account — an ACTIVE account is frozen by a compliance or fraud signal or
closed by its customer, a PENDING one whose provisioning fails becomes FAILED, and none of
them moves money afterwards.

The triggers are not shown: the adapter freezes, closes or fails the account
(``pytest_conformance_freeze_internal_account``, ``..._close_internal_account``,
``..._fail_account_provisioning``). A quote made while the account was ACTIVE shows that
the state is enforced when money would move, not only when quoting. How the refusal is
worded is not shown: any refusal passes, provided no balance changes.
"""

from __future__ import annotations

import pytest

from conformance.accounts.states import (
    CLOSE_HOOK,
    FAIL_PROVISIONING_HOOK,
    FREEZE_HOOK,
    attempt_payment,
    change_state,
    expect_nothing_moved,
    expect_status,
)
from conformance.contract.markers import needs_adapter_hook
from conformance.payments.quote_bodies import quote_body

pytestmark = [pytest.mark.resource("InternalAccount"), pytest.mark.writes]

AMOUNT = 5_000
# the transition that brings an ACTIVE account to each status (§3 Internal account)
TRANSITION_REQUIREMENTS = {
    "FROZEN": "INTERNAL-ACCOUNT-ACTIVE-TO-FROZEN",
    "CLOSED": "INTERNAL-ACCOUNT-ACTIVE-TO-CLOSED",
}


def _quoted_then_changed(funding, quotes, adapter, hook, status, why):
    """Quote from a funded ACTIVE account, move the account to ``status`` through
    ``hook``, check it reads so, then execute the earlier quote. Returns the wallet, the
    account, the quote's destination, the balances before execute and execute's answer."""
    wallet = funding.wallet()
    source, destination = wallet.corridor().source_id, wallet.corridor().destination_id
    earlier = quotes.quote(quote_body(source, destination, amount=AMOUNT))
    change_state(adapter, hook, source)
    expect_status(
        funding,
        wallet.customer_id,
        source,
        status,
        why,
        requirement=TRANSITION_REQUIREMENTS[status],
    )
    before = {source: funding.account_balances(wallet.customer_id, source)}
    return wallet, source, destination, before, quotes.execute(earlier["id"])


@needs_adapter_hook(FREEZE_HOOK)
@pytest.mark.requirement(
    "INTERNAL-ACCOUNT-ACTIVE-TO-FROZEN", "INTERNAL-ACCOUNT-INACTIVE-NO-MOVEMENT"
)
def test_a_frozen_account_reads_frozen_and_its_payments_are_blocked(
    funding, quotes, transaction_history, adapter
):
    wallet, source, destination, before, answered = _quoted_then_changed(
        funding,
        quotes,
        adapter,
        FREEZE_HOOK,
        "FROZEN",
        "an ACTIVE internal account becomes FROZEN on a compliance or fraud signal",
    )
    expect_nothing_moved(
        funding,
        transaction_history,
        wallet.customer_id,
        before,
        "payments are blocked while an account is FROZEN: a quote made before the freeze "
        "does not debit it",
        answered=answered,
    )
    attempt = attempt_payment(quotes, source, destination, AMOUNT)
    expect_nothing_moved(
        funding,
        transaction_history,
        wallet.customer_id,
        before,
        "a FROZEN account cannot send: a new transfer from it moves nothing",
        attempt,
    )


@needs_adapter_hook(CLOSE_HOOK)
@pytest.mark.requirement(
    "INTERNAL-ACCOUNT-ACTIVE-TO-CLOSED", "INTERNAL-ACCOUNT-INACTIVE-NO-MOVEMENT"
)
def test_a_closed_account_reads_closed_and_neither_sends_nor_receives(
    funding, quotes, transaction_history, adapter
):
    wallet, source, _, before, answered = _quoted_then_changed(
        funding,
        quotes,
        adapter,
        CLOSE_HOOK,
        "CLOSED",
        "an ACTIVE internal account whose customer initiates closing becomes CLOSED",
    )
    expect_nothing_moved(
        funding,
        transaction_history,
        wallet.customer_id,
        before,
        "a CLOSED account cannot send: a quote made before closing does not debit it",
        answered=answered,
    )
    funded = funding.fund(source, AMOUNT)
    expect_nothing_moved(
        funding,
        transaction_history,
        wallet.customer_id,
        before,
        "a CLOSED account cannot receive: funding it credits nothing",
        answered=funded,
    )


@needs_adapter_hook(FAIL_PROVISIONING_HOOK)
@pytest.mark.requirement(
    "INTERNAL-ACCOUNT-PENDING-TO-FAILED", "INTERNAL-ACCOUNT-INACTIVE-NO-MOVEMENT"
)
def test_an_account_whose_provisioning_fails_reads_failed_and_receives_nothing(
    money_customers, funding, transaction_history, adapter
):
    """A business (never resolved at creation) lists PENDING accounts until approved."""
    business = money_customers.onboarding.business(
        "004", **money_customers.customer_fields(["USD"], terms=True)
    )
    pending = [a for a in funding.internal_accounts(business["id"]) if a.get("status") == "PENDING"]
    if not pending:
        pytest.skip(
            "the target lists no PENDING internal account for a new business, so none can "
            "fail provisioning (how accounts come to exist is not shown, §2 InternalAccount)"
        )
    account_id = pending[0]["id"]
    change_state(adapter, FAIL_PROVISIONING_HOOK, account_id)
    expect_status(
        funding,
        business["id"],
        account_id,
        "FAILED",
        "a PENDING internal account whose underlying account cannot be created becomes FAILED",
        requirement="INTERNAL-ACCOUNT-PENDING-TO-FAILED",
    )
    money_customers.decide(business)  # approved: what still blocks the account is its own state
    before = {account_id: funding.account_balances(business["id"], account_id)}
    funded = funding.fund(account_id, AMOUNT)
    expect_nothing_moved(
        funding,
        transaction_history,
        business["id"],
        before,
        "a FAILED account cannot receive, even once its customer is approved: funding it "
        "credits nothing",
        answered=funded,
    )
