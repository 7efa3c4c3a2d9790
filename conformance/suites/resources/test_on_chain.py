"""§2 Transaction — what a settled transfer reports about the chain it crossed: a wallet
payout's side "may carry" ``onChainTransaction {transactionHash, network}`` (judged when it
does); a UMA payment's
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
    quotes, transaction_history, transfers, funded, advisory
):
    wallet = transfers.wallet_account(funded.customer_id)
    paid = quotes.pay(funded.sources["USD"]["id"], wallet["id"], AMOUNT)
    transaction = transaction_history.completed(funded.customer_id, paid["transactionId"])
    records = chain_records(transaction)
    if not records:  # §2: a settled side "may carry" it, so its absence passes
        advisory(
            "the settled wallet payout carries no onChainTransaction (§2 Transaction: a side "
            '"may carry" it once an on-chain transfer settles)'
        )
    instructions = transaction.get("reconciliationInstructions")
    legacy = instructions.get("transactionHash") if isinstance(instructions, dict) else None
    check(  # §9.2: the deprecated hash of a wallet transfer keeps working until replaced
        bool(records) or (isinstance(legacy, str) and bool(legacy)),
        CLAUSE,
        "a settled wallet payout reports its on-chain hash: onChainTransaction on a side, or "
        "the deprecated reconciliationInstructions.transactionHash (§9.2: keeps working)",
        observed={k: transaction.get(k) for k in ("destination", "reconciliationInstructions")},
    )
    check(
        all(isinstance(r, dict) and r.get("transactionHash") and r.get("network") for r in records),
        CLAUSE,
        "an onChainTransaction a settled side carries is {transactionHash, network}",
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
