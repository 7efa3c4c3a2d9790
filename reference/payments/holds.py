"""Payouts held for compliance review (§2 Transaction ``pendingReason``; SANDBOX.md,
"Limits, refused rates and compliance holds").

The interface shows no trigger; the sandbox holds every payout to an external account
whose primary identifier ends in ``077`` (our choice): the source is debited as usual,
the transaction stays ``PROCESSING`` and carries ``pendingReason: COMPLIANCE_REVIEW``. The
review never ends in the sandbox. The reference adapter's
``pytest_conformance_held_account_number`` names such an identifier.
"""

from __future__ import annotations

from dataclasses import replace

from reference.kernel.db import Database, to_json
from reference.kernel.seams import seam
from reference.kernel.settings import ServerSettings
from reference.payments.transaction_store import Transaction

HELD = "077"
COMPLIANCE_REVIEW = "COMPLIANCE_REVIEW"

PENDING_REASON = seam(
    "holds.pending_reason",
    "the pendingReason recorded on a payout held for review, or None to record none"
    " (context: transaction)",
)


def hold(db: Database, settings: ServerSettings, transaction: Transaction) -> str:
    """Record the hold's reason on the transaction; its status (unchanged). Call in the DB
    transaction that moves it to ``PROCESSING``."""
    reason: str | None = settings.seams.apply(
        PENDING_REASON, COMPLIANCE_REVIEW, transaction=transaction
    )
    if reason is not None:
        fields = {**transaction.fields, "pendingReason": reason}
        db.execute(
            "UPDATE transactions SET fields = ? WHERE id = ?", (to_json(fields), transaction.id)
        )
        transaction = replace(transaction, fields=fields)
    return transaction.status
