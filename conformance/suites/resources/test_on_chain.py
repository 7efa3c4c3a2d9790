"""§2 Transaction — what a settled transfer reports about the chain it crossed: a wallet
payout's side carries ``onChainTransaction {transactionHash, network}``; a UMA payment's
``reconciliationInstructions.transactionHash`` reports its inter-VASP settlement leg.
Both are paid from a funded USD internal account and read once settled.
"""

from __future__ import annotations

import pytest

from conformance.contract import clauses
from conformance.contract.failures import check

pytestmark = [pytest.mark.resource("Transaction"), pytest.mark.writes]

CLAUSE = clauses.TRANSACTION
AMOUNT = 20_000


@pytest.fixture(scope="module")
def funded(funding):
    return funding.wallet(("USD",))


def chain_records(transaction):
    """The onChainTransaction objects on either side of the transaction."""
    sides = (transaction.get("source"), transaction.get("destination"))
    return [
        s["onChainTransaction"]
        for s in sides
        if isinstance(s, dict) and s.get("onChainTransaction")
    ]


@pytest.mark.requirement("TRANSACTION-ON-CHAIN-TRANSACTION")
def test_a_settled_wallet_payout_carries_its_on_chain_transaction(
    quotes, transaction_history, transfers, funded
):
    wallet = transfers.wallet_account(funded.customer_id)
    paid = quotes.pay(funded.sources["USD"]["id"], wallet["id"], AMOUNT)
    transaction = transaction_history.completed(funded.customer_id, paid["transactionId"])
    records = chain_records(transaction)
    check(
        any(isinstance(r, dict) and r.get("transactionHash") and r.get("network") for r in records),
        CLAUSE,
        "once an on-chain transfer settles, its side carries onChainTransaction "
        "{transactionHash, network}",
        observed={k: transaction.get(k) for k in ("source", "destination", "status")},
    )


@pytest.mark.requirement("UMA-RECONCILIATION-SETTLEMENT-HASH")
def test_a_settled_uma_payment_reports_its_settlement_leg_hash(
    quotes, transaction_history, transfers, funded
):
    body = transfers.uma_body(funded.sources["USD"]["id"], transfers.uma_address(), AMOUNT)
    quote = quotes.quote(body)
    quotes.execute_ok(quote["id"])
    transaction = transaction_history.completed(funded.customer_id, quote["transactionId"])
    instructions = transaction.get("reconciliationInstructions")
    digest = instructions.get("transactionHash") if isinstance(instructions, dict) else None
    check(
        isinstance(digest, str) and bool(digest),
        CLAUSE,
        "reconciliationInstructions.transactionHash still reports the inter-VASP settlement "
        "leg of a UMA payment",
        observed=instructions,
    )
