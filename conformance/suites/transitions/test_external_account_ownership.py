"""§3 External account — ``PENDING_OWNERSHIP_VERIFICATION`` is still usable below regulatory
thresholds; it becomes ``ACTIVE`` on successful ownership verification and ``UNVERIFIED`` on
a failed attempt, and each change fires ``EXTERNAL_ACCOUNT.STATUS_UPDATED``.

Which accounts need verification and the proofs come from the adapter (not shown). The
thresholds are not published: a payout of 100.00 in the account's currency is taken as
below them (a refusal is an advisory, not a failure). The event's payload is not shown: an
event delivered after the verify call that names or mentions the account counts, and its
status is held to the change only where it can be read (else an advisory).
"""

from __future__ import annotations

import pytest

from conformance.accounts.ownership import (
    OWNERSHIP_PROOF_HOOK,
    PENDING_NUMBER_HOOK,
    check_new_status,
)
from conformance.contract import clauses
from conformance.contract.failures import check
from conformance.contract.markers import needs_adapter_hook
from conformance.exchange.assertions import required_json

pytestmark = [
    pytest.mark.resource("ExternalAccount"),
    pytest.mark.writes,
    needs_adapter_hook(PENDING_NUMBER_HOOK),
]

CLAUSE = clauses.EXTERNAL_ACCOUNT_STATES
SMALL = 10_000  # 100.00 USD


@pytest.fixture(scope="module")
def wallet(funding):
    return funding.wallet(("USD",))


@pytest.mark.requirement("EXTERNAL-ACCOUNT-PENDING-USABLE")
def test_an_account_pending_ownership_verification_receives_a_small_payout(
    quotes, transaction_history, ownership, wallet, advisory
):
    account = ownership.pending_account(wallet.customer_id)
    source = wallet.sources["USD"]["id"]
    response = quotes.create_quote(
        {
            "source": {"sourceType": "ACCOUNT", "accountId": source},
            "destination": {"destinationType": "ACCOUNT", "accountId": account["id"]},
            "lockedCurrencySide": "SENDING",
            "lockedCurrencyAmount": SMALL,
        }
    )
    quote = required_json(
        response,
        CLAUSE,
        "an external account in PENDING_OWNERSHIP_VERIFICATION can still be used for "
        "transfers below regulatory thresholds: a quote paying it 100.00 USD is created",
        status=(200, 201),
    )
    executed = quotes.execute_ok(quote["id"])
    transaction = transaction_history.settled(wallet.customer_id, executed["transactionId"])
    check(
        transaction.get("status") == "COMPLETED",
        CLAUSE,
        "a payout below the thresholds to an account PENDING_OWNERSHIP_VERIFICATION settles",
        expected="COMPLETED",
        observed={k: transaction.get(k) for k in ("id", "status", "failureReason")},
    )


@pytest.mark.requirement("EXTERNAL-ACCOUNT-VERIFIED-ACTIVE")
@needs_adapter_hook(OWNERSHIP_PROOF_HOOK)
def test_successful_ownership_verification_makes_the_account_active(
    ownership, wallet, resource_events, advisory
):
    account = ownership.pending_account(wallet.customer_id)
    after = resource_events.mark()
    status = ownership.verified(ownership.prove(account, valid=True), valid=True)
    check(
        status in ("ACTIVE", None),
        CLAUSE,
        "successful ownership verification makes the external account ACTIVE",
        expected="ACTIVE",
        observed=status,
    )
    why = "successful ownership verification"
    events = ownership.status_events(resource_events, account, why, after=after)
    check_new_status(events, "ACTIVE", why, advisory)


@pytest.mark.requirement("EXTERNAL-ACCOUNT-FAILED-UNVERIFIED")
@needs_adapter_hook(OWNERSHIP_PROOF_HOOK)
def test_a_failed_ownership_verification_makes_the_account_unverified(
    ownership, wallet, resource_events, advisory
):
    account = ownership.pending_account(wallet.customer_id)
    after = resource_events.mark()
    status = ownership.verified(ownership.prove(account, valid=False), valid=False)
    check(
        status in ("UNVERIFIED", None),
        CLAUSE,
        "a failed ownership-verification attempt makes the external account UNVERIFIED",
        expected="UNVERIFIED",
        observed=status,
    )
    why = "a failed ownership-verification attempt"
    events = ownership.status_events(resource_events, account, why, after=after, valid=False)
    check_new_status(events, "UNVERIFIED", why, advisory)
