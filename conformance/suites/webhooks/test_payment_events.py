"""§6 Events — OUTGOING_PAYMENT.* events, as the webhook sink receives them.

One payment that completes and one whose payout fails (the failing destination comes from
the adapter) are walked to the end; each test then reads their events for one property.
"""

from __future__ import annotations

import pytest

from conformance.contract import clauses
from conformance.contract.failures import check
from conformance.contract.markers import needs_adapter_hook
from conformance.ground import hookspecs
from conformance.payments.events import OUTGOING

pytestmark = [
    pytest.mark.resource("Webhook"),
    pytest.mark.writes,
    needs_adapter_hook(hookspecs.pytest_conformance_failing_account_number),
]

CLAUSE = clauses.EVENTS
COMPLETED_WALK = ("PROCESSING", "COMPLETED")
FAILED_WALK = ("PROCESSING", "FAILED", "REFUND_PENDING", ("REFUND_COMPLETED", "REFUND_FAILED"))


@pytest.fixture(scope="module")
def payments(external_accounts, funding, quotes, transaction_history):
    """(transaction id, the events its walk must emit, the walk) for two payments."""
    wallet = funding.wallet(("USD",))
    failing = external_accounts.failing_external_account(wallet.customer_id)
    source = wallet.sources["USD"]["id"]
    paid = quotes.pay(source, wallet.destinations["USD"]["id"], 30_000)
    returned = quotes.pay(source, failing["id"], 30_000)
    settled = transaction_history.completed(wallet.customer_id, paid["transactionId"])
    transaction_history.settled(wallet.customer_id, returned["transactionId"])
    return [
        (settled["id"], COMPLETED_WALK, "a payment that settles (PROCESSING, COMPLETED)"),
        (returned["transactionId"], FAILED_WALK, "a failed payout and its automatic refund"),
    ]


def events_of(payment_events, payments):
    for transaction_id, walk, why in payments:
        yield transaction_id, payment_events.wait(transaction_id, walk, why=why, clause=CLAUSE)


@pytest.mark.requirement("WEBHOOK-PAYMENT-DATA-IS-TRANSACTION", "WEBHOOK-ENVELOPE")
def test_payment_events_are_envelopes_whose_data_is_the_transaction(payment_events, payments):
    for _, events in events_of(payment_events, payments):
        payment_events.check_envelopes(events)


@pytest.mark.requirement("WEBHOOK-OUTGOING-PAYMENT-STATUS")
def test_each_status_event_carries_the_transaction_in_that_status(payment_events, payments):
    for _, events in events_of(payment_events, payments):
        payment_events.check_statuses(events)


@pytest.mark.requirement(
    "WEBHOOK-OUTGOING-REFUND-EVENTS",
    "REFUND-OUTGOING-LIFECYCLE",
    "TRANSACTION-PROCESSING-TO-COMPLETED",
    "TRANSACTION-PROCESSING-TO-FAILED",
)
def test_payment_events_follow_the_state_machine(payment_events, payments):
    """Refund events only after FAILED: the completed payment has none."""
    for transaction_id, events in events_of(payment_events, payments):
        payment_events.check_order(events)
        if transaction_id == payments[0][0]:
            refunds = [d.summary() for d in events if "REFUND" in (d.event_type or "")]
            check(
                not refunds,
                CLAUSE,
                f"{OUTGOING}REFUND_* events are emitted only for the refund of a failed "
                "outgoing transaction",
                expected="no refund event for a completed payment",
                observed=refunds,
                requirement="WEBHOOK-OUTGOING-REFUND-EVENTS",
            )
