"""Stored transactions (§2 Transaction): the record, writing, reading, listing, rendering.

The fixed part of a transaction (source, destination, amounts, rate, fees, texts) is one
JSON object written when its quote is created; the columns beside it are what changes:
status, failure reason, refund and settlement time.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass, replace
from typing import Any

from reference.kernel.db import Database, from_json, to_json

PENDING = "PENDING"
PROCESSING = "PROCESSING"
COMPLETED = "COMPLETED"
FAILED = "FAILED"
EXPIRED = "EXPIRED"
STATUSES = (PENDING, PROCESSING, COMPLETED, FAILED, EXPIRED)
FINAL = frozenset({COMPLETED, FAILED, EXPIRED})
OUTGOING = "OUTGOING"
DEBIT = "DEBIT"


@dataclass(frozen=True, slots=True)
class Transaction:
    """One transaction as stored."""

    id: str
    platform_id: str
    customer_id: str | None
    quote_id: str
    fields: dict[str, Any]
    status: str
    failure_reason: str | None
    refund: dict[str, Any] | None
    settled_at: str | None
    created_at: str
    updated_at: str

    @property
    def sent_amount(self) -> int:
        """What leaves the source, in the sending currency's smallest unit."""
        return int(self.fields["sentAmount"]["amount"])

    @property
    def received_amount(self) -> int:
        """What reaches the destination, in the receiving currency's smallest unit."""
        return int(self.fields["receivedAmount"]["amount"])


def insert(db: Database, transaction: Transaction) -> None:
    """Store a new transaction."""
    db.execute(
        """INSERT INTO transactions (id, platform_id, customer_id, quote_id, fields, status,
           failure_reason, refund, settled_at, created_at, updated_at)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)""",
        (
            transaction.id,
            transaction.platform_id,
            transaction.customer_id,
            transaction.quote_id,
            to_json(transaction.fields),
            transaction.status,
            transaction.failure_reason,
            None if transaction.refund is None else to_json(transaction.refund),
            transaction.settled_at,
            transaction.created_at,
            transaction.updated_at,
        ),
    )


def save(db: Database, transaction: Transaction, stamp: str, **changes: Any) -> Transaction:
    """Apply ``changes`` (dataclass field names) with ``updatedAt`` = ``stamp``."""
    stored = replace(transaction, updated_at=stamp, **changes)
    db.execute(
        """UPDATE transactions SET status = ?, failure_reason = ?, refund = ?, settled_at = ?,
           updated_at = ? WHERE id = ?""",
        (
            stored.status,
            stored.failure_reason,
            None if stored.refund is None else to_json(stored.refund),
            stored.settled_at,
            stored.updated_at,
            stored.id,
        ),
    )
    return stored


def _transaction(row: sqlite3.Row) -> Transaction:
    return Transaction(
        id=row["id"],
        platform_id=row["platform_id"],
        customer_id=row["customer_id"],
        quote_id=row["quote_id"],
        fields=from_json(row["fields"]),
        status=row["status"],
        failure_reason=row["failure_reason"],
        refund=from_json(row["refund"]),
        settled_at=row["settled_at"],
        created_at=row["created_at"],
        updated_at=row["updated_at"],
    )


def load(db: Database, platform_id: str, transaction_id: str) -> Transaction | None:
    """The platform's transaction with this id; another platform's is None too."""
    row = db.fetchone(
        "SELECT * FROM transactions WHERE id = ? AND platform_id = ?",
        (transaction_id, platform_id),
    )
    return None if row is None else _transaction(row)


def find(
    db: Database, platform_id: str, customer_id: str | None, status: str | None
) -> list[Transaction]:
    """The platform's transactions, newest first, optionally of one customer and status."""
    sql = "SELECT * FROM transactions WHERE platform_id = ?"
    params: list[Any] = [platform_id]
    if customer_id is not None:
        sql += " AND customer_id = ?"
        params.append(customer_id)
    if status is not None:
        sql += " AND status = ?"
        params.append(status)
    return [_transaction(row) for row in db.fetchall(sql + " ORDER BY seq DESC", params)]


def render(transaction: Transaction) -> dict[str, Any]:
    """The Transaction response body (also the ``data`` of ``OUTGOING_PAYMENT.*`` events).

    A field without a value (no description, no failureReason before a failure, no refund,
    settledAt before settlement) is omitted, never null: §2 Transaction allows no null."""
    body = {
        "id": transaction.id,
        "status": transaction.status,
        "type": OUTGOING,
        "direction": DEBIT,
        **transaction.fields,
        "failureReason": transaction.failure_reason,
        "refund": transaction.refund,
        "settledAt": transaction.settled_at,
        "createdAt": transaction.created_at,
        "updatedAt": transaction.updated_at,
    }
    return {key: value for key, value in body.items() if value is not None}
