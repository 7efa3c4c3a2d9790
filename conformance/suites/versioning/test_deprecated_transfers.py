"""§9.2 Deprecations that keep working — ``POST /transfer-in`` and ``POST /transfer-out``
still move money and answer a Transaction (their bodies are not shown: the adapter hook
``pytest_conformance_transfer_body`` supplies them); ``reconciliationInstructions
.transactionHash`` is still reported on wallet transfers, beside ``onChainTransaction``.
"""

from __future__ import annotations

import pytest

from conformance.contract import clauses
from conformance.contract.failures import check
from conformance.contract.markers import needs_adapter_hook
from conformance.ground import hookspecs

pytestmark = [pytest.mark.resource("Transaction"), pytest.mark.writes]

CLAUSE = clauses.VERSIONING + " — 9.2 Deprecations"
AMOUNT = 30_000


def answered_transaction(response, path):
    __tracebackhide__ = True
    body = response.json if 200 <= response.status < 300 else None
    check(
        isinstance(body, dict) and isinstance(body.get("id"), str),
        CLAUSE,
        f"the deprecated POST {path} keeps working unchanged and returns a Transaction",
        expected="2xx with a Transaction",
        observed=(response.status, response.content[:300]),
        exchange=response.exchange,
    )
    return body


@pytest.mark.requirement("VERSION-DEPRECATED-TRANSFER-ENDPOINTS")
@needs_adapter_hook(hookspecs.pytest_conformance_transfer_body)
def test_transfer_out_and_transfer_in_still_move_money(funding, transaction_history, transfers):
    wallet = funding.wallet(("USD",))
    source = wallet.sources["USD"]["id"]
    outside = wallet.destinations["USD"]["id"]
    before = funding.account_balances(wallet.customer_id, source).available
    out = transfers.legacy_transfer("out", source, outside, AMOUNT, "USD")
    sent = answered_transaction(out, "/transfer-out")
    transaction_history.settled(wallet.customer_id, sent["id"])
    after = funding.account_balances(wallet.customer_id, source).available
    check(
        after < before,
        CLAUSE,
        "POST /transfer-out still moves money: the internal account it pays from is debited",
        expected=f"below {before}",
        observed=after,
    )
    into = transfers.legacy_transfer("in", outside, source, AMOUNT, "USD")
    answered_transaction(into, "/transfer-in")


@pytest.mark.requirement("VERSION-DEPRECATED-RECONCILIATION-HASH")
def test_wallet_transfers_still_report_the_reconciliation_hash(
    funding, quotes, transaction_history, transfers
):
    funded = funding.wallet(("USD",))
    wallet = transfers.wallet_account(funded.customer_id)
    paid = quotes.pay(funded.sources["USD"]["id"], wallet["id"], AMOUNT)
    transaction = transaction_history.completed(funded.customer_id, paid["transactionId"])
    instructions = transaction.get("reconciliationInstructions")
    digest = instructions.get("transactionHash") if isinstance(instructions, dict) else None
    check(
        isinstance(digest, str) and bool(digest),
        CLAUSE,
        "the deprecated reconciliationInstructions.transactionHash keeps being reported on a "
        "settled wallet transfer (alongside onChainTransaction)",
        observed=instructions,
    )
