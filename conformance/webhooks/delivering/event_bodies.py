"""Realistic events, as the service would send them to a platform (§6 Events).

Each event is the envelope ``{id: Webhook:<uuid>, type, timestamp, data}``; ``data`` is the
record the event is about: the Transaction (§2) for payment events, the full CardTransaction
for ``CARD_TRANSACTION.*`` (both stated by §6), and, where §6 says the payload is "not
shown", the record §2 describes: the Customer for ``CUSTOMER.KYC_*`` / ``KYB_*`` and the
ExternalAccount for ``EXTERNAL_ACCOUNT.STATUS_UPDATED`` (``EventType.payload_shown``). Every
body satisfies the kit's own schemas (``schemas/webhooks/``, checked by a self-test). The
TEST event has its own shape.
The invitation-claimed event is left out: its ``type`` and payload are not shown.
Ids, references and times come from a ``Minter``: fresh ones by default, or seeded ones
(the same event every time, for the shipped vectors).
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

__all__ = [
    "EVENT_TYPES",
    "Event",
    "EventType",
    "Minter",
    "event_of_type",
    "follow_up",
    "make_test_event",
]

_USD = {"code": "USD", "name": "United States Dollar", "symbol": "$", "decimals": 2}
_EUR = {"code": "EUR", "name": "Euro", "symbol": "€", "decimals": 2}


@dataclass(slots=True)
class Minter:
    """Where an event's ids, references and times come from: fresh (``uuid4``, the clock)
    without a ``seed``; with one, the same ids in the same order each time (``uuid5`` of the
    seed and a count) and the clock stopped at ``moment``."""

    seed: str | None = None
    moment: datetime | None = None
    _count: int = 0

    def id(self, kind: str) -> str:
        """A new ``<kind>:<uuid>``."""
        if self.seed is None:
            return f"{kind}:{uuid.uuid4()}"
        self._count += 1
        return f"{kind}:{uuid.uuid5(uuid.NAMESPACE_URL, f'{self.seed}/{self._count}')}"

    def now(self) -> datetime:
        """The current time, or the stopped clock's."""
        return self.moment or datetime.now(UTC)


def _id(kind: str, minter: Minter) -> str:
    return minter.id(kind)


def _stamp(moment: datetime) -> str:
    return moment.astimezone(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


@dataclass(frozen=True, slots=True)
class Event:
    """One event: its envelope as a dict, and the exact bytes a delivery sends."""

    envelope: dict[str, Any]
    schema: str  # the kit's schema the envelope satisfies (schemas/webhooks/...)
    data_schema: str | None = None  # the record's schema, where the envelope's is generic

    @property
    def body(self) -> bytes:
        """Compact JSON, as a service sends it; the signature covers these bytes."""
        return json.dumps(self.envelope, separators=(",", ":"), ensure_ascii=False).encode()

    @property
    def type(self) -> str:
        return str(self.envelope["type"])


def make_test_event(now: datetime | None = None, minter: Minter | None = None) -> Event:
    """The TEST event: ``{test: true, timestamp, webhookId, type: "TEST"}``."""
    minter = minter or Minter()
    envelope = {
        "test": True,
        "timestamp": _stamp(now or minter.now()),
        "webhookId": _id("Webhook", minter),
        "type": "TEST",
    }
    return Event(envelope, "webhooks/test-event.json")


def _transaction(status: str, minter: Minter, *, incoming: bool = False) -> dict[str, Any]:
    """A cross-currency outgoing payment (or a returned incoming deposit) in ``status``."""
    created = minter.now() - timedelta(minutes=2)
    record: dict[str, Any] = {
        "id": _id("Transaction", minter),
        "status": status,
        "type": "INCOMING" if incoming else "OUTGOING",
        "direction": "CREDIT" if incoming else "DEBIT",
        "customerId": _id("Customer", minter),
        "platformCustomerId": "platform-customer-4711",
        "source": {"sourceType": "ACCOUNT", "accountId": _id("InternalAccount", minter)},
        "destination": {
            "destinationType": "ACCOUNT",
            "accountId": _id("ExternalAccount", minter),
            "paymentRail": "SEPA",
        },
        "sentAmount": {"amount": 10_000, "currency": _USD},
        "receivedAmount": {"amount": 9_150, "currency": _EUR},
        "exchangeRate": 0.92,
        "quoteId": _id("Quote", minter),
        "description": "Invoice 2025-118",
        "createdAt": _stamp(created),
    }
    if incoming:  # a deposit from a bank account into an internal account, same currency
        record["source"] = {"sourceType": "ACCOUNT", "accountId": _id("ExternalAccount", minter)}
        record["destination"] = {
            "destinationType": "ACCOUNT",
            "accountId": _id("InternalAccount", minter),
        }
        record["sentAmount"] = {"amount": 25_000, "currency": _USD}
        record["receivedAmount"] = {"amount": 25_000, "currency": _USD}
        record["exchangeRate"] = 1
        record["quoteId"] = None
    if status == "COMPLETED":
        record["settledAt"] = _stamp(created + timedelta(seconds=40))
    if status == "FAILED":
        record["failureReason"] = "QUOTE_EXECUTION_FAILED"
    return record


def _refunded(phase: str, minter: Minter, *, incoming: bool) -> dict[str, Any]:
    record = _transaction("FAILED", minter, incoming=incoming)
    record["failureReason"] = "PAYOUT_RETURNED"
    reference = minter.id("RF").partition(":")[2].replace("-", "")[:10].upper()
    record["refund"] = {"status": phase, "reference": f"RF-{reference}"}
    return record


def _customer(status: str, minter: Minter, *, business: bool) -> dict[str, Any]:
    record: dict[str, Any] = {
        "id": _id("Customer", minter),
        "platformCustomerId": "platform-customer-4711",
        "customerType": "BUSINESS" if business else "INDIVIDUAL",
        "email": "ops@example.com" if business else "ada.lovelace@example.com",
        "region": "US",
        "currencies": ["USD"],
        "address": {
            "line1": "1 Market Street",
            "city": "San Francisco",
            "state": "CA",
            "postalCode": "94105",
            "country": "US",
        },
    }
    if business:
        record["businessInfo"] = {
            "legalName": "Example Widgets Inc.",
            "country": "US",
            "taxId": "12-3456789",
            "incorporatedOn": "2019-04-01",
            "registrationNumber": "C4711",
        }
        record["kybStatus"] = status
    else:
        record |= {"fullName": "Ada Lovelace", "birthDate": "1990-12-10", "nationality": "GB"}
        record["kycStatus"] = status
    return record


def _card_transaction(status: str, minter: Minter) -> dict[str, Any]:
    record: dict[str, Any] = {
        "id": _id("CardTransaction", minter),
        "status": status,
        "direction": "DEBIT",
        "settledAmount": {"amount": 0 if status != "SETTLED" else 1_250, "currency": _USD},
        "refundedAmount": {"amount": 0, "currency": _USD},
        "merchant": {"name": "Corner Coffee", "city": "Portland", "state": "OR"},
    }
    if status == "DECLINED":
        record["cardDeclinedReason"] = "SPEND_LIMIT_EXCEEDED"
    return record


def _external_account(minter: Minter) -> dict[str, Any]:
    return {
        "id": _id("ExternalAccount", minter),
        "customerId": _id("Customer", minter),
        "status": "ACTIVE",
        "currency": "USD",
        "accountInfo": {
            "accountType": "US_ACCOUNT",
            "accountNumber": "000123456789",
            "routingNumber": "021000021",
        },
    }


@dataclass(frozen=True, slots=True)
class EventType:
    """An event type §6 names, the schema its envelope satisfies and how its data is made."""

    name: str
    schema: str
    data: Callable[[Minter], dict[str, Any]]
    data_schema: str | None = None
    # §6 shows the payload of payment events (the Transaction) and card events (the full
    # card transaction); the others' is "not shown", so their data is the kit's choice
    payload_shown: bool = True


def _payment(name: str, status: str) -> EventType:
    return EventType(
        name, "webhooks/payment-event.json", lambda minter: _transaction(status, minter)
    )


def _refund(name: str, phase: str, *, incoming: bool) -> EventType:
    return EventType(
        name,
        "webhooks/payment-event.json",
        lambda minter: _refunded(phase, minter, incoming=incoming),
    )


def _verification(name: str, status: str, *, business: bool) -> EventType:
    return EventType(
        name,
        "webhooks/envelope.json",
        lambda minter: _customer(status, minter, business=business),
        "customer.json",
        payload_shown=False,
    )


def _card(name: str, status: str) -> EventType:
    schema = "webhooks/card-transaction-event.json"
    return EventType(name, schema, lambda minter: _card_transaction(status, minter))


# Every type §6 names, in its table's order (CARD_TRANSACTION.* by the three it names).
EVENT_TYPES: tuple[EventType, ...] = (
    _payment("OUTGOING_PAYMENT.PROCESSING", "PROCESSING"),
    _payment("OUTGOING_PAYMENT.COMPLETED", "COMPLETED"),
    _payment("OUTGOING_PAYMENT.FAILED", "FAILED"),
    _refund("OUTGOING_PAYMENT.REFUND_PENDING", "PENDING", incoming=False),
    _refund("OUTGOING_PAYMENT.REFUND_COMPLETED", "COMPLETED", incoming=False),
    _refund("OUTGOING_PAYMENT.REFUND_FAILED", "FAILED", incoming=False),
    _refund("INCOMING_PAYMENT.REFUND_PENDING", "PENDING", incoming=True),
    _refund("INCOMING_PAYMENT.REFUND_COMPLETED", "COMPLETED", incoming=True),
    _refund("INCOMING_PAYMENT.REFUND_FAILED", "FAILED", incoming=True),
    _verification("CUSTOMER.KYC_PENDING", "PENDING", business=False),
    _verification("CUSTOMER.KYC_APPROVED", "APPROVED", business=False),
    _verification("CUSTOMER.KYC_REJECTED", "REJECTED", business=False),
    _verification("CUSTOMER.KYB_PENDING", "PENDING", business=True),
    _verification("CUSTOMER.KYB_APPROVED", "APPROVED", business=True),
    _verification("CUSTOMER.KYB_REJECTED", "REJECTED", business=True),
    _card("CARD_TRANSACTION.SETTLED", "SETTLED"),
    _card("CARD_TRANSACTION.DECLINED", "DECLINED"),
    _card("CARD_TRANSACTION.VOIDED", "VOIDED"),
    EventType(
        "EXTERNAL_ACCOUNT.STATUS_UPDATED",
        "webhooks/envelope.json",
        _external_account,
        "external-account.json",
        payload_shown=False,
    ),
)
_BY_NAME = {event_type.name: event_type for event_type in EVENT_TYPES}


def event_of_type(
    name: str,
    now: datetime | None = None,
    data: dict[str, Any] | None = None,
    minter: Minter | None = None,
) -> Event:
    """A fresh event of type ``name`` (one of ``EVENT_TYPES``), stamped ``now``, about a new
    record, or about ``data`` when given (another event about the same record); its ids and
    times from ``minter`` (fresh ones by default)."""
    minter = minter or Minter()
    event_type = _BY_NAME[name]
    envelope = {
        "id": _id("Webhook", minter),
        "type": name,
        "timestamp": _stamp(now or minter.now()),
        "data": event_type.data(minter) if data is None else data,
    }
    return Event(envelope, event_type.schema, event_type.data_schema)


def follow_up(
    event: Event, name: str, moment: datetime, minter: Minter | None = None, **changes: Any
) -> Event:
    """A later event of type ``name`` about the same record as ``event``, stamped
    ``moment``, its record changed by ``changes`` (the new status, say)."""
    return event_of_type(name, moment, {**event.envelope["data"], **changes}, minter)
