"""The ledger (SANDBOX.md, "Ledger and internal accounts"): one row per debit or
credit of an internal account, amounts signed integers in the account currency's smallest
unit.

An account's total balance is the sum of its rows; its available balance leaves out held
rows (§2 InternalAccount: available excludes pending and held funds). This slice settles
everything at once and writes no held rows; the column is there for the later ones.

Every money movement is one ``Database.transaction()`` (``BEGIN IMMEDIATE``): callers post
inside the transaction that also changes the records the movement belongs to.
"""

from __future__ import annotations

from dataclasses import dataclass

from reference.kernel.clock import iso, utc_now
from reference.kernel.db import Database

FUNDING = "FUNDING"  # sandbox funding of an account
DEBIT = "DEBIT"  # the source of an executed quote
CREDIT = "CREDIT"  # an internal destination at settlement
REFUND = "REFUND"  # the source credited back after a failed payout


@dataclass(frozen=True, slots=True)
class Balances:
    """Both balances of one account, in its currency's smallest unit."""

    available: int
    total: int


def post(
    db: Database,
    account_id: str,
    amount: int,
    kind: str,
    transaction_id: str | None = None,
    *,
    held: bool = False,
) -> None:
    """Write one row: a credit when ``amount`` is positive, a debit when negative."""
    if amount == 0:
        return
    db.execute(
        """INSERT INTO ledger_entries (account_id, amount, held, kind, transaction_id, created_at)
           VALUES (?, ?, ?, ?, ?, ?)""",
        (account_id, amount, int(held), kind, transaction_id, iso(utc_now())),
    )


def balances(db: Database, account_id: str) -> Balances:
    """The account's available and total balances."""
    row = db.fetchone(
        """SELECT COALESCE(SUM(amount), 0) AS total,
                  COALESCE(SUM(CASE WHEN held = 0 THEN amount ELSE 0 END), 0) AS available
           FROM ledger_entries WHERE account_id = ?""",
        (account_id,),
    )
    if row is None:  # an aggregate always yields a row; this keeps the type checker honest
        return Balances(0, 0)
    return Balances(available=int(row["available"]), total=int(row["total"]))
