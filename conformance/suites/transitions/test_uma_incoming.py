"""§4 sandbox — an incoming UMA payment to a customer creates an incoming transaction for
that customer. The payment is simulated through the adapter hook
``pytest_conformance_simulate_incoming_uma_payment`` (the simulator's path is not shown).
"""

from __future__ import annotations

import pytest

from conformance.contract import clauses
from conformance.contract.failures import check
from conformance.contract.markers import needs_adapter_hook
from conformance.ground import hookspecs

pytestmark = [
    pytest.mark.resource("Transaction"),
    pytest.mark.writes,
    needs_adapter_hook(hookspecs.pytest_conformance_simulate_incoming_uma_payment),
]

CLAUSE = clauses.CARDS_AGENTS_SANDBOX_ENDPOINTS + " — incoming UMA payment"
AMOUNT = 12_345


@pytest.mark.requirement("UMA-INCOMING-PAYMENT")
def test_an_incoming_uma_payment_creates_an_incoming_transaction(
    money_customers, funding, transaction_history, transfers, adapter
):
    customer = money_customers.approved_customer(("USD",))
    account = funding.active_account(customer["id"], "USD")
    adapter.call(
        hookspecs.pytest_conformance_simulate_incoming_uma_payment,
        account_id=account["id"],
        amount=AMOUNT,
        currency="USD",
    )
    transaction = transfers.incoming_transaction(customer["id"], AMOUNT)
    check(
        transaction is not None,
        CLAUSE,
        "an incoming UMA payment to a customer creates an incoming transaction for that "
        "customer (listed by GET /transactions?customerId=)",
        expected=f"a transaction receiving {AMOUNT}, not OUTGOING/DEBIT",
        observed=transaction_history.transactions(customer["id"]),
    )
