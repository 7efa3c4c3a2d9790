"""§6 Events — ``INCOMING_PAYMENT.REFUND_*`` events are signed envelopes whose ``data`` is
the incoming Transaction, in the order of the refund's walk."""

from __future__ import annotations

import pytest

from conformance.contract import clauses
from conformance.contract.failures import check
from conformance.contract.markers import needs_adapter_hook
from conformance.payments.incoming import RETURN_HOOK, STEPS, refund_events, returned_deposit

pytestmark = [
    pytest.mark.resource("Transaction"),
    pytest.mark.writes,
    needs_adapter_hook(RETURN_HOOK),
]


@pytest.mark.requirement(
    "REFUND-INCOMING-EVENTS", "WEBHOOK-PAYMENT-DATA-IS-TRANSACTION", "WEBHOOK-SIGNATURE"
)
def test_incoming_refund_events_are_signed_transactions_in_order(
    money_customers, funding, adapter, resource_events
):
    customer = money_customers.approved_customer(["USD"])
    account = funding.active_account(customer["id"], "USD")
    transaction = returned_deposit(adapter, account["id"], 2_500)
    events = refund_events(resource_events, transaction["id"])
    resource_events.check(
        events,
        STEPS,
        "an INCOMING_PAYMENT event is the envelope {id: Webhook:<uuid>, type, timestamp, data} "
        "whose data is the Transaction",
    )
    ids = {(e.json or {}).get("data", {}).get("id") for e in events}
    check(
        ids == {transaction["id"]},
        clauses.EVENTS,
        "data for payment events is the Transaction: every refund event carries the incoming "
        "transaction",
        expected=transaction["id"],
        observed=sorted(str(i) for i in ids),
    )
