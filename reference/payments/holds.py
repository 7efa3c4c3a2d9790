"""Payouts held for compliance review (§2 Transaction ``pendingReason``; ARCHITECTURE.md,
"Limits, refused rates and compliance holds").

The interface shows no trigger; the sandbox holds every payout to an external account
whose primary identifier ends in ``077`` (our choice): the source is debited as usual,
the transaction stays ``PROCESSING`` and carries ``pendingReason: COMPLIANCE_REVIEW``. The
review never ends in the sandbox. The reference adapter's
``pytest_conformance_held_account_number`` names such an identifier.
"""

from __future__ import annotations

from dataclasses import replace

from reference.payments.transaction_store import Transaction
from reference.server.db import Database, to_json
from reference.server.settings import ServerSettings

HELD = "077"
COMPLIANCE_REVIEW = "COMPLIANCE_REVIEW"


def hold(db: Database, settings: ServerSettings, transaction: Transaction) -> str:
    """Record the hold's reason on the transaction; its status (unchanged). Call in the DB
    transaction that moves it to ``PROCESSING``."""
    if not settings.has_fault("pending-reason-missing"):
        fields = {**transaction.fields, "pendingReason": COMPLIANCE_REVIEW}
        db.execute(
            "UPDATE transactions SET fields = ? WHERE id = ?", (to_json(fields), transaction.id)
        )
        transaction = replace(transaction, fields=fields)
    return transaction.status
