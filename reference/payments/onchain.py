"""What a settled transfer records about the chain it crossed (§2 Transaction
``onChainTransaction``, ``reconciliationInstructions.transactionHash``; §9.2).

A payout to an external ``WALLET`` account settles on its ``network``: its destination
carries ``onChainTransaction {transactionHash, network}``, and the deprecated
``reconciliationInstructions.transactionHash`` reports the same hash. A UMA payment's
inter-VASP settlement leg is reported in ``reconciliationInstructions.transactionHash``.
The sandbox makes the hashes up (64 hex digits).
"""

from __future__ import annotations

import secrets
from dataclasses import replace
from typing import Any

from reference.accounts import external_accounts
from reference.kernel.db import Database, to_json
from reference.kernel.seams import seam
from reference.kernel.services import Services
from reference.payments import uma
from reference.payments.quote_store import Quote
from reference.payments.transaction_store import Transaction

WALLET = "WALLET"

WALLET_RECORDS = seam(
    "onchain.wallet_records",
    "the fields a settled payout to a WALLET account gains: destination.onChainTransaction"
    " and reconciliationInstructions.transactionHash (context: quote, account)",
)


def _hash() -> str:
    return "0x" + secrets.token_hex(32)


def _extras(services: Services, quote: Quote) -> dict[str, Any]:
    fields = quote.fields
    if uma.is_uma(fields):
        return {"reconciliationInstructions": {"transactionHash": _hash()}}
    account_id = fields.get("destination", {}).get("accountId")
    account = (
        None
        if account_id is None
        else external_accounts.load_account(services.db, quote.platform_id, str(account_id))
    )
    if account is None or account.account_info.get("accountType") != WALLET:
        return {}
    digest = _hash()
    network = str(account.account_info.get("network", ""))
    destination = {
        **fields["destination"],
        "onChainTransaction": {"transactionHash": digest, "network": network},
    }
    records = {
        "destination": destination,
        "reconciliationInstructions": {"transactionHash": digest},
    }
    return services.settings.seams.apply(WALLET_RECORDS, records, quote=quote, account=account)


def _store(db: Database, transaction: Transaction, extras: dict[str, Any]) -> Transaction:
    fields = {**transaction.fields, **extras}
    db.execute("UPDATE transactions SET fields = ? WHERE id = ?", (to_json(fields), transaction.id))
    return replace(transaction, fields=fields)


def settled(services: Services, quote: Quote, transaction: Transaction) -> Transaction:
    """The transaction with its chain records, stored; call as it settles, in the same DB
    transaction."""
    extras = _extras(services, quote)
    if services.settings.variant:  # §2: a settled side "may carry" it; the variant never does
        extras.pop("destination", None)
    return _store(services.db, transaction, extras) if extras else transaction
