"""Stored customers (§2 Customer): the record, loading, saving and rendering.

The table is ``customers`` (DDL in ``customer_tables``). The fields a platform sends are
kept as one JSON object under their API names; the columns
beside it are what the sandbox itself decides: status, sandbox suffix, consents on file and
which contact channels were verified.

Storing a customer also keeps its internal accounts in step: the accounts area's hook
(``install_on_stored``, installed by the assembly) provisions them with the customer and
makes them ``ACTIVE`` in the write that stores ``APPROVED``, so every status change reaches
the accounts in the same DB transaction.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

from reference.customers import agreements
from reference.kernel.clock import iso, later_than, utc_now
from reference.kernel.countries import EEA
from reference.kernel.db import Database, from_json, to_json
from reference.kernel.errors import ApiError
from reference.kernel.validation import Problems

INDIVIDUAL = "INDIVIDUAL"
BUSINESS = "BUSINESS"
UNVERIFIED = "UNVERIFIED"
PENDING = "PENDING"
APPROVED = "APPROVED"
REJECTED = "REJECTED"
FINAL_STATUSES = frozenset({APPROVED, REJECTED})  # §4 Sandbox behaviours: final

# Contact channels and the customer field each one verifies.
CHANNEL_FIELDS = {"email": "email", "phone": "phoneNumber"}


@dataclass(frozen=True, slots=True)
class Customer:
    """One customer as stored."""

    id: str
    platform_id: str
    customer_type: str
    fields: dict[str, Any]
    status: str
    # the sandbox suffix, read once (SANDBOX.md, "Verification and the sandbox suffixes")
    suffix: str | None
    consents: dict[str, dict[str, Any]] = field(default_factory=dict)
    email_verified: bool = False
    phone_verified: bool = False
    created_at: str = ""
    updated_at: str = ""

    @property
    def is_individual(self) -> bool:
        """KYC (individual) rather than KYB (business)."""
        return self.customer_type == INDIVIDUAL

    @property
    def is_final(self) -> bool:
        """``APPROVED`` or ``REJECTED``: no submission moves it again."""
        return self.status in FINAL_STATUSES

    @property
    def status_field(self) -> str:
        """``kycStatus`` for individuals, ``kybStatus`` for businesses."""
        return "kycStatus" if self.is_individual else "kybStatus"

    @property
    def event_prefix(self) -> str:
        """``CUSTOMER.KYC_`` or ``CUSTOMER.KYB_`` (§6 Events)."""
        return "CUSTOMER.KYC_" if self.is_individual else "CUSTOMER.KYB_"

    def channel_verified(self, channel: str) -> bool:
        """Whether the current value of ``channel`` (email or phone) was confirmed."""
        return self.email_verified if channel == "email" else self.phone_verified


def new_customer_id() -> str:
    """A fresh ``Customer:<uuid>``."""
    return f"Customer:{uuid.uuid4()}"


def required_channels(customer: Customer) -> list[str]:
    """The contact channels the simulated provider requires: individuals in the EEA, for
    each channel on file (SANDBOX.md, "Contact verification")."""
    if not customer.is_individual or customer.fields.get("region") not in EEA:
        return []
    return [name for name, key in CHANNEL_FIELDS.items() if customer.fields.get(key)]


def pending_channels(customer: Customer) -> list[str]:
    """Required channels not yet verified."""
    return [c for c in required_channels(customer) if not customer.channel_verified(c)]


def insert(db: Database, customer: Customer) -> Customer:
    """Store a new customer; timestamps are set here."""
    now = iso(utc_now())
    stored = replace(customer, created_at=now, updated_at=now)
    db.execute(
        """INSERT INTO customers (id, platform_id, customer_type, fields, status, suffix,
           consents, email_verified, phone_verified, created_at, updated_at)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)""",
        (
            stored.id,
            stored.platform_id,
            stored.customer_type,
            to_json(stored.fields),
            stored.status,
            stored.suffix,
            to_json(stored.consents),
            int(stored.email_verified),
            int(stored.phone_verified),
            now,
            now,
        ),
    )
    _stored(db, stored)
    return stored


def save(db: Database, customer: Customer) -> Customer:
    """Write every mutable column back and move ``updatedAt`` forward."""
    stored = replace(customer, updated_at=later_than(customer.updated_at))
    db.execute(
        """UPDATE customers SET fields = ?, status = ?, suffix = ?, consents = ?,
           email_verified = ?, phone_verified = ?, updated_at = ? WHERE id = ?""",
        (
            to_json(stored.fields),
            stored.status,
            stored.suffix,
            to_json(stored.consents),
            int(stored.email_verified),
            int(stored.phone_verified),
            stored.updated_at,
            stored.id,
        ),
    )
    _stored(db, stored)
    return stored


# What else a stored customer changes in the same write: the accounts area keeps the
# customer's internal accounts in step. The assembly installs it (``reference.server.app``),
# so this area never imports the one above it.
StoredHook = Callable[[Database, Customer], None]
_on_stored: tuple[StoredHook, ...] = ()


def install_on_stored(*hooks: StoredHook) -> None:
    """Run ``hooks`` after every insert and save, inside the caller's transaction
    (installing again replaces)."""
    global _on_stored
    _on_stored = hooks


def _stored(db: Database, customer: Customer) -> None:
    for hook in _on_stored:
        hook(db, customer)


def load(db: Database, platform_id: str, customer_id: str) -> Customer | None:
    """The platform's customer with this id; another platform's customer is None too."""
    row = db.fetchone(
        "SELECT * FROM customers WHERE id = ? AND platform_id = ?", (customer_id, platform_id)
    )
    if row is None:
        return None
    return Customer(
        id=row["id"],
        platform_id=row["platform_id"],
        customer_type=row["customer_type"],
        fields=from_json(row["fields"]),
        status=row["status"],
        suffix=row["suffix"],
        consents=from_json(row["consents"]),
        email_verified=bool(row["email_verified"]),
        phone_verified=bool(row["phone_verified"]),
        created_at=row["created_at"],
        updated_at=row["updated_at"],
    )


def load_or_404(db: Database, platform_id: str, customer_id: str) -> Customer:
    """The platform's customer, or 404 ``NOT_FOUND`` (also for another platform's)."""
    customer = load(db, platform_id, customer_id)
    if customer is None:
        raise ApiError(404, "NOT_FOUND", f"no customer {customer_id}")
    return customer


def named_in_body(
    problems: Problems, db: Database, platform_id: str, value: Any, field: str
) -> Customer | None:
    """The platform's customer a body names as ``field`` (sent as ``value``), else None with
    the problem recorded: ``REQUIRED`` or ``TYPE_STRING`` (400), ``UNKNOWN_CUSTOMER`` (404,
    as an unknown id in a path)."""
    if value is None:
        problems.add(field, "REQUIRED", "is required")
        return None
    if problems.string(field, value) is None:
        return None
    customer = load(db, platform_id, value)
    if customer is None:
        problems.unknown(field, "UNKNOWN_CUSTOMER", "must be a customer of the platform")
    return customer


def render(customer: Customer) -> dict[str, Any]:
    """The Customer response body."""
    body: dict[str, Any] = {"id": customer.id, "customerType": customer.customer_type}
    body.update(customer.fields)
    body[customer.status_field] = customer.status
    channels = required_channels(customer)
    if channels:
        body["contactVerification"] = {
            channel: "VERIFIED" if customer.channel_verified(channel) else "PENDING"
            for channel in channels
        }
    body.update(agreements.render(customer.consents))
    body["createdAt"] = customer.created_at
    body["updatedAt"] = customer.updated_at
    return body
