"""§3 Quote and transaction — a returned incoming deposit is refunded with
``INCOMING_PAYMENT.REFUND_PENDING``, then ``INCOMING_PAYMENT.REFUND_COMPLETED`` or
``INCOMING_PAYMENT.REFUND_FAILED``, and the money reconciles: a completed refund takes the
deposit back out, a failed one leaves it credited.

The deposit and its return are triggered by the adapter (not shown).
"""

from __future__ import annotations

import time

import pytest

from conformance.contract import clauses
from conformance.contract.failures import check, fail
from conformance.contract.markers import needs_adapter_hook
from conformance.payments.incoming import (
    COMPLETED,
    PENDING,
    RETURN_HOOK,
    refund_events,
    returned_deposit,
)

pytestmark = [
    pytest.mark.resource("Transaction"),
    pytest.mark.writes,
    needs_adapter_hook(RETURN_HOOK),
]

CLAUSE = clauses.QUOTE_AND_TRANSACTION_STATES
DEPOSIT = 4_321


@pytest.mark.requirement("REFUND-INCOMING-EVENTS")
def test_a_returned_incoming_deposit_is_refunded_with_its_events(
    money_customers, funding, adapter, resource_events, profile
):
    customer = money_customers.approved_customer(["USD"])
    account = funding.active_account(customer["id"], "USD")
    before = funding.account_balances(customer["id"], account["id"])
    transaction = returned_deposit(adapter, account["id"], DEPOSIT)
    events = refund_events(resource_events, transaction["id"])
    # by timestamp, never by arrival (§6 shows no delivery order); equal timestamps in the
    # order §3 allows, so two events stamped in one instant pass whichever arrived first
    kinds = [
        e.event_type
        for e in sorted(events, key=lambda e: (e.timestamp or 0, e.event_type != PENDING))
    ]
    check(
        kinds[:1] == [PENDING] and len(kinds) == 2,
        CLAUSE,
        "a returned incoming deposit is refunded with INCOMING_PAYMENT.REFUND_PENDING, then "
        "one of INCOMING_PAYMENT.REFUND_COMPLETED or .REFUND_FAILED (by timestamp)",
        observed=[e.summary() for e in events],
    )
    kept = 0 if kinds[-1] == COMPLETED else DEPOSIT
    deadline = time.monotonic() + profile.webhook_timeout
    while True:
        after = funding.account_balances(customer["id"], account["id"])
        if after.total - before.total == kept or time.monotonic() >= deadline:
            break
        time.sleep(0.1)
    if after.total - before.total != kept:
        fail(
            CLAUSE,
            "money reconciles with the refund's outcome: a completed refund of a returned "
            "deposit takes it back out of the account, a failed one leaves it credited",
            expected={"outcome": kinds[-1], "balance change": kept},
            observed={"balance change": after.total - before.total},
        )
