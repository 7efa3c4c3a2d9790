"""Card transactions as stored, rendered and announced (§2 CardTransaction, §6
``CARD_TRANSACTION.*``).

A row is ``{id: Transaction:<uuid>, type: CARD, cardId, customerId, internalAccountId,
status, direction, authorizedAmount, settledAmount, refundedAmount, originalTransactionId,
cardDeclinedReason, merchant, createdAt, updatedAt}``; the three amounts carry full currency
metadata. Statuses: ``AUTHORIZED`` (our name for the authorized state, not shown),
``SETTLED``, ``DECLINED``, ``VOIDED``, and ``REVERSED`` for a merchant return whose credit
was reversed (``POST /sandbox/cards/{id}/simulate/return_reversal``). Every status a row
takes, its first included, is announced as ``CARD_TRANSACTION.<STATUS>`` carrying the whole
row, in the DB transaction that makes the change.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, replace
from typing import Any

from reference.kernel import currencies
from reference.kernel.clock import iso, later_than, utc_now
from reference.kernel.db import Database, from_json, to_json
from reference.kernel.seams import seam
from reference.kernel.services import Services

AUTHORIZED = "AUTHORIZED"
SETTLED = "SETTLED"
DECLINED = "DECLINED"
VOIDED = "VOIDED"
REVERSED = "REVERSED"
EXCEPTION = "EXCEPTION"
DEBIT = "DEBIT"
CREDIT = "CREDIT"
EVENT_PREFIX = "CARD_TRANSACTION."

RENDERED = seam(
    "cards.transaction_rendered",
    "the CardTransaction body the API answers and its events carry (context: row, the"
    " CardTransaction as stored)",
)
EVENT_DATA = seam(
    "cards.transaction_event_data",
    "the data of the CARD_TRANSACTION.<STATUS> event a row's new status fires, None to fire"
    " none (context: row, the CardTransaction in its new status)",
)


@dataclass(frozen=True, slots=True)
class CardTransaction:
    """One card transaction as stored."""

    id: str
    platform_id: str
    card_id: str
    customer_id: str | None
    account_id: str
    status: str
    direction: str
    currency: str
    amount: int
    settled: int
    refunded: int
    original_id: str | None
    declined_reason: str | None
    merchant: dict[str, Any] | None
    created_at: str
    updated_at: str


def new(
    *,
    platform_id: str,
    card_id: str,
    customer_id: str | None,
    account_id: str,
    currency: str,
    amount: int,
    direction: str = DEBIT,
    merchant: dict[str, Any] | None = None,
    original_id: str | None = None,
) -> CardTransaction:
    """A row not yet stored (status set by :func:`insert`)."""
    now = iso(utc_now())
    return CardTransaction(
        id=f"Transaction:{uuid.uuid4()}",
        platform_id=platform_id,
        card_id=card_id,
        customer_id=customer_id,
        account_id=account_id,
        status="",
        direction=direction,
        currency=currency,
        amount=amount,
        settled=0,
        refunded=0,
        original_id=original_id,
        declined_reason=None,
        merchant=merchant,
        created_at=now,
        updated_at=now,
    )


def _row(row: Any) -> CardTransaction:
    return CardTransaction(
        id=row["id"],
        platform_id=row["platform_id"],
        card_id=row["card_id"],
        customer_id=row["customer_id"],
        account_id=row["account_id"],
        status=row["status"],
        direction=row["direction"],
        currency=row["currency"],
        amount=row["amount"],
        settled=row["settled"],
        refunded=row["refunded"],
        original_id=row["original_id"],
        declined_reason=row["declined_reason"],
        merchant=from_json(row["merchant"]),
        created_at=row["created_at"],
        updated_at=row["updated_at"],
    )


def load(db: Database, platform_id: str, transaction_id: str) -> CardTransaction | None:
    """The platform's card transaction with this id, or None."""
    row = db.fetchone(
        "SELECT * FROM card_transactions WHERE id = ? AND platform_id = ?",
        (transaction_id, platform_id),
    )
    return None if row is None else _row(row)


def find(
    db: Database, platform_id: str, customer_id: str | None, card_id: str | None
) -> list[CardTransaction]:
    """The platform's card transactions, newest first, by customer and card when given."""
    sql = "SELECT * FROM card_transactions WHERE platform_id = ?"
    params: list[Any] = [platform_id]
    if customer_id is not None:
        sql += " AND customer_id = ?"
        params.append(customer_id)
    if card_id is not None:
        sql += " AND card_id = ?"
        params.append(card_id)
    rows = db.fetchall(sql + " ORDER BY created_at DESC, rowid DESC", params)
    return [_row(r) for r in rows]


def _money(amount: int, code: str) -> dict[str, Any]:
    return {"amount": amount, "currency": currencies.CURRENCIES[code].as_json()}


def render(services: Services, row: CardTransaction) -> dict[str, Any]:
    """The card transaction as the API and its events show it."""
    body: dict[str, Any] = {
        "id": row.id,
        "type": "CARD",
        "cardId": row.card_id,
        "customerId": row.customer_id,
        "internalAccountId": row.account_id,
        "status": row.status,
        "direction": row.direction,
        "authorizedAmount": _money(row.amount, row.currency),
        "settledAmount": _money(row.settled, row.currency),
        "refundedAmount": _money(row.refunded, row.currency),
        "createdAt": row.created_at,
        "updatedAt": row.updated_at,
    }
    # §2 CardTransaction allows no null: a field without a value is omitted
    optional = {
        "originalTransactionId": row.original_id,
        "merchant": row.merchant,
        "cardDeclinedReason": row.declined_reason,
    }
    body.update((key, value) for key, value in optional.items() if value is not None)
    return services.settings.seams.apply(RENDERED, body, row=row)


def _announce(services: Services, row: CardTransaction) -> None:
    data: dict[str, Any] | None = render(services, row)
    data = services.settings.seams.apply(EVENT_DATA, data, row=row)
    if data is not None:
        services.webhooks.enqueue_event(
            row.platform_id, EVENT_PREFIX + row.status, data, timestamp=row.updated_at
        )


def insert(
    services: Services, row: CardTransaction, status: str, **changes: Any
) -> CardTransaction:
    """Store a new row in ``status`` and announce it."""
    row = replace(row, status=status, **changes)
    services.db.execute(
        """INSERT INTO card_transactions (id, platform_id, card_id, customer_id, account_id,
           status, direction, currency, amount, settled, refunded, original_id,
           declined_reason, merchant, created_at, updated_at)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)""",
        (row.id, row.platform_id, row.card_id, row.customer_id, row.account_id, row.status,
         row.direction, row.currency, row.amount, row.settled, row.refunded, row.original_id,
         row.declined_reason, None if row.merchant is None else to_json(row.merchant),
         row.created_at, row.updated_at),
    )  # fmt: skip
    _announce(services, row)
    return row


def update(services: Services, row: CardTransaction, **changes: Any) -> CardTransaction:
    """Save ``changes`` with a strictly later ``updatedAt``; announce a status change."""
    new_row = replace(row, updated_at=later_than(row.updated_at), **changes)
    services.db.execute(
        """UPDATE card_transactions SET status = ?, settled = ?, refunded = ?, updated_at = ?
           WHERE id = ?""",
        (new_row.status, new_row.settled, new_row.refunded, new_row.updated_at, new_row.id),
    )
    if new_row.status != row.status:
        _announce(services, new_row)
    return new_row
