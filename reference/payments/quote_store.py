"""Stored quotes (§2 Quote): creation with their transaction, reading, status changes,
expiry and rendering.

A quote is created ``PENDING`` together with its ``PENDING`` transaction, so
``transactionId`` is on the quote from the start (§3 Quote and transaction). The priced
part is one JSON object fixed at creation. A ``PENDING`` quote whose ``expiresAt`` has
passed is ``EXPIRED``, and so is its transaction: ``expire_due`` writes that down before
anything reads quotes or transactions, so reads, filters and execution agree.
"""

from __future__ import annotations

import sqlite3
import uuid
from dataclasses import dataclass, replace
from datetime import timedelta
from typing import Any

from reference.accounts import funding
from reference.kernel.clock import iso, parse_iso, utc_now
from reference.kernel.db import Database, from_json, to_json
from reference.payments import transaction_store
from reference.payments.quote_validation import ValidQuote
from reference.payments.transaction_store import Transaction
from reference.payments.uma import UmaDestination
from reference.payments.uma import destination_json as uma_json

PENDING = "PENDING"
PROCESSING = "PROCESSING"
COMPLETED = "COMPLETED"
EXPIRED = "EXPIRED"


@dataclass(frozen=True, slots=True)
class Quote:
    """One quote as stored."""

    id: str
    platform_id: str
    customer_id: str | None
    fields: dict[str, Any]
    status: str
    transaction_id: str
    expires_at: str
    created_at: str
    updated_at: str

    def past_expiry(self) -> bool:
        """Whether ``expiresAt`` is now or earlier."""
        return parse_iso(self.expires_at) <= utc_now()

    @property
    def source_account_id(self) -> str:
        """The account the quote debits ("" for a just-in-time source)."""
        return str(self.fields["source"].get("accountId", ""))

    @property
    def destination_account_id(self) -> str:
        """The internal or external account the quote pays ("" for a UMA address)."""
        return str(self.fields["destination"].get("accountId", ""))


def _quote_fields(valid: ValidQuote) -> dict[str, Any]:
    price = valid.price
    fees = price.fees
    fields: dict[str, Any] = {
        "customerId": valid.customer_id,
        "source": funding.source_json(valid.source),
        "destination": {
            "destinationType": "ACCOUNT",
            "accountId": valid.destination_id,
            "paymentRail": valid.payment_rail,
        },
        "lockedCurrencySide": valid.side,
        "lockedCurrencyAmount": valid.amount,
        "sendingCurrency": valid.sending.as_json(),
        "receivingCurrency": valid.receiving.as_json(),
        "totalSendingAmount": price.total_sending,
        "totalReceivingAmount": price.total_receiving,
        "exchangeRate": float(price.exchange_rate),
        "feesIncluded": price.fees_included,
        "platformFeesIncluded": price.platform_fee,
        "description": valid.description,
        "immediatelyExecute": valid.immediately,
        "rateDetails": {
            "counterpartyMultiplier": 1.0,
            "counterpartyFixedFee": 0,
            "serviceApiMultiplier": float(price.exchange_rate),
            "serviceApiFixedFee": fees.fixed,
            "serviceApiVariableFeeRate": float(fees.variable_rate),
            "serviceApiVariableFeeAmount": price.variable_fee,
        },
    }
    fields.update(valid.texts)
    fields.update(funding.quote_instructions(valid.source))  # just-in-time only
    if isinstance(valid.destination, UmaDestination):
        fields["destination"] = uma_json(valid.destination)
    return fields


def _transaction_fields(valid: ValidQuote, quote_id: str, quote: dict[str, Any]) -> dict[str, Any]:
    price = valid.price
    fields: dict[str, Any] = {
        "customerId": valid.customer_id,
        "platformCustomerId": valid.platform_customer_id,
        "quoteId": quote_id,
        "source": quote["source"],
        "destination": quote["destination"],
        "sentAmount": {"amount": price.total_sending, "currency": valid.sending.as_json()},
        "receivedAmount": {"amount": price.total_receiving, "currency": valid.receiving.as_json()},
        "exchangeRate": quote["exchangeRate"],
        "description": valid.description,
        "platformFees": {"amount": price.platform_fee, "currency": valid.sending.as_json()},
    }
    fields.update(valid.texts)
    return fields


def create(db: Database, platform_id: str, valid: ValidQuote, lifetime_s: float) -> Quote:
    """Store a ``PENDING`` quote and its ``PENDING`` transaction; call in a transaction."""
    created = utc_now()
    now = iso(created)
    quote_id = f"Quote:{uuid.uuid4()}"
    fields = _quote_fields(valid)
    quote = Quote(
        id=quote_id,
        platform_id=platform_id,
        customer_id=valid.customer_id,
        fields=fields,
        status=PENDING,
        transaction_id=f"Transaction:{uuid.uuid4()}",
        expires_at=iso(created + timedelta(seconds=lifetime_s)),
        created_at=now,
        updated_at=now,
    )
    transaction = Transaction(
        id=quote.transaction_id,
        platform_id=platform_id,
        customer_id=valid.customer_id,
        quote_id=quote_id,
        fields=_transaction_fields(valid, quote_id, fields),
        status=transaction_store.PENDING,
        failure_reason=None,
        refund=None,
        settled_at=None,
        created_at=now,
        updated_at=now,
    )
    db.execute(
        """INSERT INTO quotes (id, platform_id, customer_id, fields, status, transaction_id,
           expires_at, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)""",
        (
            quote.id,
            platform_id,
            quote.customer_id,
            to_json(fields),
            quote.status,
            quote.transaction_id,
            quote.expires_at,
            now,
            now,
        ),
    )
    transaction_store.insert(db, transaction)
    return quote


def set_status(db: Database, quote: Quote, status: str, stamp: str) -> Quote:
    """Store a new status with ``updatedAt`` = ``stamp``."""
    db.execute(
        "UPDATE quotes SET status = ?, updated_at = ? WHERE id = ?", (status, stamp, quote.id)
    )
    return replace(quote, status=status, updated_at=stamp)


def _quote(row: sqlite3.Row) -> Quote:
    return Quote(
        id=row["id"],
        platform_id=row["platform_id"],
        customer_id=row["customer_id"],
        fields=from_json(row["fields"]),
        status=row["status"],
        transaction_id=row["transaction_id"],
        expires_at=row["expires_at"],
        created_at=row["created_at"],
        updated_at=row["updated_at"],
    )


def load(db: Database, platform_id: str, quote_id: str) -> Quote | None:
    """The platform's quote with this id; another platform's is None too."""
    row = db.fetchone(
        "SELECT * FROM quotes WHERE id = ? AND platform_id = ?", (quote_id, platform_id)
    )
    return None if row is None else _quote(row)


def expire_due(db: Database, platform_id: str) -> None:
    """Mark the platform's ``PENDING`` quotes past ``expiresAt``, and their transactions,
    ``EXPIRED``. Call inside a transaction, before reading them."""
    now = iso(utc_now())
    rows = db.fetchall(
        """SELECT id, transaction_id FROM quotes
           WHERE platform_id = ? AND status = ? AND expires_at <= ?""",
        (platform_id, PENDING, now),
    )
    for row in rows:
        db.execute(
            "UPDATE quotes SET status = ?, updated_at = ? WHERE id = ?", (EXPIRED, now, row["id"])
        )
        db.execute(
            "UPDATE transactions SET status = ?, updated_at = ? WHERE id = ? AND status = ?",
            (transaction_store.EXPIRED, now, row["transaction_id"], transaction_store.PENDING),
        )


def render(quote: Quote) -> dict[str, Any]:
    """The Quote response body; a field without a value (a quote sent no description) is
    omitted, never null: §2 Quote types each field and allows no null."""
    body = {
        "id": quote.id,
        "status": quote.status,
        "createdAt": quote.created_at,
        "expiresAt": quote.expires_at,
        **quote.fields,
        "transactionId": quote.transaction_id,
        "updatedAt": quote.updated_at,
    }
    return {key: value for key, value in body.items() if value is not None}
