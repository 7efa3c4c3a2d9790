"""Internal accounts (§2 InternalAccount, §3 Internal account): provisioning, activation,
reading and rendering (SANDBOX.md, "Ledger and internal accounts").

Each customer gets, when created, one ``INTERNAL_FIAT`` account per currency in its
``currencies`` (USD when it lists none) and one ``INTERNAL_CRYPTO`` USDC account. They are
``PENDING`` until the customer is ``APPROVED`` and ``ACTIVE`` from then on: the customer
store runs ``sync_customer`` inside the transaction that stores the customer (the assembly
installs it there), so the accounts change exactly when the status does. Each platform also owns one
``INTERNAL_FIAT`` USD account (``customerId`` null), seeded ``ACTIVE`` at start-up.
"""

from __future__ import annotations

import sqlite3
import uuid
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from reference.accounts import ledger, rule_based_tables
from reference.customers.store import APPROVED, Customer
from reference.kernel import currencies
from reference.kernel.clock import iso, utc_now
from reference.kernel.db import Database

INTERNAL_FIAT = "INTERNAL_FIAT"
INTERNAL_CRYPTO = "INTERNAL_CRYPTO"
RULE_BASED = "RULE_BASED"
EMBEDDED_WALLET = "EMBEDDED_WALLET"
PENDING = "PENDING"
ACTIVE = "ACTIVE"
DEFAULT_FIAT = "USD"
CRYPTO = "USDC"
# Funding instructions are a simulation: fixed bank details, numbers derived from the id.
SANDBOX_BANK = "Sandbox Bank, N.A."
SANDBOX_ROUTING = "021000021"
HOLDER = "Service Sandbox FBO Customers"


@dataclass(frozen=True, slots=True)
class InternalAccount:
    """One internal account as stored (balances come from the ledger)."""

    id: str
    platform_id: str
    customer_id: str | None
    account_type: str
    currency: str
    status: str
    label: str | None
    created_at: str
    updated_at: str

    @property
    def is_active(self) -> bool:
        """Only ``ACTIVE`` accounts send or receive (§3 Internal account)."""
        return self.status == ACTIVE


def _insert(
    db: Database,
    platform_id: str,
    customer_id: str | None,
    kind: str,
    code: str,
    status: str,
    label: str | None = None,
) -> str:
    now = iso(utc_now())
    account_id = f"InternalAccount:{uuid.uuid4()}"
    db.execute(
        """INSERT INTO internal_accounts (id, platform_id, customer_id, account_type,
           currency, status, label, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)""",
        (account_id, platform_id, customer_id, kind, code, status, label, now, now),
    )
    return account_id


def insert_rule_based(
    db: Database, platform_id: str, customer_id: str, code: str, label: str | None
) -> InternalAccount:
    """Store a new ``ACTIVE`` ``RULE_BASED`` account (its rule is stored by the caller)."""
    account_id = _insert(db, platform_id, customer_id, RULE_BASED, code, ACTIVE, label)
    account = load(db, platform_id, account_id)
    assert account is not None
    return account


def insert_embedded_wallet(
    db: Database, platform_id: str, customer_id: str, code: str
) -> InternalAccount:
    """Store a new ``ACTIVE`` ``EMBEDDED_WALLET`` account (its key is stored by the caller)."""
    account_id = _insert(db, platform_id, customer_id, EMBEDDED_WALLET, code, ACTIVE)
    account = load(db, platform_id, account_id)
    assert account is not None
    return account


def _fiat_codes(codes: Iterable[Any] | None) -> list[str]:
    """The fiat currencies a customer's ``currencies`` asks for, USD when none."""
    wanted: list[str] = []
    for code in codes or ():
        known = currencies.find(code) if isinstance(code, str) else None
        if known is not None and known.iso4217 and code not in wanted:
            wanted.append(code)
    return wanted or [DEFAULT_FIAT]


def provision(
    db: Database,
    platform_id: str,
    customer_id: str,
    codes: Iterable[Any] | None,
    approved: bool,
) -> None:
    """Create the customer's missing accounts (idempotent: a currency added later by PATCH
    gets its account then). Call inside the customer's transaction."""
    existing = {
        (row["account_type"], row["currency"])
        for row in db.fetchall(
            "SELECT account_type, currency FROM internal_accounts WHERE customer_id = ?",
            (customer_id,),
        )
    }
    status = ACTIVE if approved else PENDING
    wanted = [(INTERNAL_FIAT, code) for code in _fiat_codes(codes)] + [(INTERNAL_CRYPTO, CRYPTO)]
    for kind, code in wanted:
        if (kind, code) not in existing:
            _insert(db, platform_id, customer_id, kind, code, status)


def sync_customer(db: Database, customer: Customer) -> None:
    """Provision the customer's internal accounts (new currencies included) and activate
    them once the customer is ``APPROVED``. Runs inside the caller's transaction."""
    approved = customer.status == APPROVED
    provision(db, customer.platform_id, customer.id, customer.fields.get("currencies"), approved)
    if approved:
        activate(db, customer.id)


def activate(db: Database, customer_id: str) -> None:
    """Provisioning completes: the customer's ``PENDING`` accounts become ``ACTIVE``."""
    db.execute(
        """UPDATE internal_accounts SET status = ?, updated_at = ?
           WHERE customer_id = ? AND status = ?""",
        (ACTIVE, iso(utc_now()), customer_id, PENDING),
    )


def seed_platform_account(db: Database, platform_id: str) -> None:
    """Give the platform its own USD account unless it has one."""
    with db.transaction():
        row = db.fetchone(
            "SELECT 1 FROM internal_accounts WHERE platform_id = ? AND customer_id IS NULL",
            (platform_id,),
        )
        if row is None:
            _insert(db, platform_id, None, INTERNAL_FIAT, DEFAULT_FIAT, ACTIVE)


def _account(row: sqlite3.Row) -> InternalAccount:
    return InternalAccount(
        id=row["id"],
        platform_id=row["platform_id"],
        customer_id=row["customer_id"],
        account_type=row["account_type"],
        currency=row["currency"],
        status=row["status"],
        label=row["label"],
        created_at=row["created_at"],
        updated_at=row["updated_at"],
    )


def load(db: Database, platform_id: str, account_id: str) -> InternalAccount | None:
    """The platform's account with this id; another platform's is None too."""
    row = db.fetchone(
        "SELECT * FROM internal_accounts WHERE id = ? AND platform_id = ?",
        (account_id, platform_id),
    )
    return None if row is None else _account(row)


def owned_by(db: Database, platform_id: str, customer_id: str | None) -> list[InternalAccount]:
    """A customer's accounts, or the platform's own when ``customer_id`` is None; oldest
    first."""
    if customer_id is None:
        rows = db.fetchall(
            """SELECT * FROM internal_accounts WHERE platform_id = ? AND customer_id IS NULL
               ORDER BY seq""",
            (platform_id,),
        )
    else:
        rows = db.fetchall(
            """SELECT * FROM internal_accounts WHERE platform_id = ? AND customer_id = ?
               ORDER BY seq""",
            (platform_id, customer_id),
        )
    return [_account(row) for row in rows]


def card_capabilities(account_type: str, customer_id: str | None) -> dict[str, bool] | None:
    """The capabilities of a card funded by an internal account, or None when the account
    cannot fund a card (§2 InternalAccount: "absent when the account cannot fund a card").
    The reference's choice: a customer's ``INTERNAL_FIAT`` accounts fund cards; crypto,
    embedded-wallet, rule-based and platform accounts do not."""
    if account_type != INTERNAL_FIAT or customer_id is None:
        return None
    return {"supportsDigitalWalletTokenization": True}


# Fields the area of an account type adds to its body: the wallet area's ``privateEnabled``
# of an embedded wallet, kept in its own table. The assembly installs them
# (``reference.server.app``), so this area never imports the ones above it.
TypeFields = Callable[[Database, InternalAccount], dict[str, Any]]
_TYPE_FIELDS: dict[str, TypeFields] = {}


def install_type_fields(account_type: str, fields: TypeFields) -> None:
    """Have ``render`` add ``fields(db, account)`` to the body of each ``account_type``
    account (installing again replaces)."""
    _TYPE_FIELDS[account_type] = fields


def _money(amount: int, code: str) -> dict[str, Any]:
    currency = currencies.CURRENCIES[code]
    return {"amount": amount, "currency": currency.as_json()}


def funding_instructions(account: InternalAccount) -> list[dict[str, Any]]:
    """How to fund the account (§2 payment instruction entries): a US bank account for
    USD, a CLABE for MXN, a wallet for crypto, an IBAN for any other fiat currency."""
    digits = str(uuid.UUID(account.id.split(":", 1)[1]).int)
    reference = f"FUND-{account.id[-8:].upper()}"
    common = {"accountHolderName": HOLDER, "bankName": SANDBOX_BANK, "reference": reference}
    info: dict[str, Any]
    if account.account_type in (INTERNAL_CRYPTO, EMBEDDED_WALLET):
        info = {
            "accountType": "WALLET",
            "address": "0x" + uuid.UUID(account.id.split(":", 1)[1]).hex.ljust(40, "0"),
            "assetType": account.currency,
            "reference": reference,
        }
    elif account.currency == "USD":
        info = {
            "accountType": "US_ACCOUNT",
            "accountNumber": digits[-12:],
            "routingNumber": SANDBOX_ROUTING,
            "accountCategory": "CHECKING",
            **common,
        }
    elif account.currency == "MXN":
        info = {"accountType": "CLABE_ACCOUNT", "clabe": "002010" + digits[-12:], **common}
    else:
        info = {"accountType": "IBAN_ACCOUNT", "iban": "GB00SBOX" + digits[-14:], **common}
    notes = f"Include the reference {reference} so the deposit is credited to this account."
    return [{"instructionsNotes": notes, "accountOrWalletInfo": info}]


def render(db: Database, account: InternalAccount) -> dict[str, Any]:
    """The InternalAccount response body, balances read from the ledger."""
    balances = ledger.balances(db, account.id)
    body: dict[str, Any] = {
        "id": account.id,
        "type": account.account_type,
        "status": account.status,
        "currency": account.currency,
        "customerId": account.customer_id,
        "label": account.label,
        "sweepRule": rule_based_tables.sweep_rule(db, account.id)
        if account.account_type == RULE_BASED
        else None,
        "availableBalance": _money(balances.available, account.currency),
        "totalBalance": _money(balances.total, account.currency),
        "fundingPaymentInstructions": funding_instructions(account),
        "createdAt": account.created_at,
        "updatedAt": account.updated_at,
    }
    capabilities = card_capabilities(account.account_type, account.customer_id)
    if capabilities is not None:  # absent when the account cannot fund a card (§2)
        body["cardCapabilities"] = capabilities
    type_fields = _TYPE_FIELDS.get(account.account_type)
    if type_fields is not None:  # e.g. the privacy flag, only on embedded wallets (§2)
        body.update(type_fields(db, account))
    return body
