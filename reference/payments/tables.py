"""The tables of the money-movement area (§2 InternalAccount, ExternalAccount, Quote,
Transaction) and the ledger behind the balances, in creation order.

As with ``customer_tables``, the DDL lives apart from the modules that use it so ``schema``
can list it without importing the routing layer.
"""

from __future__ import annotations

SCHEMA: tuple[str, ...] = (
    # internal_accounts
    """CREATE TABLE IF NOT EXISTS internal_accounts (
        seq INTEGER PRIMARY KEY AUTOINCREMENT,
        id TEXT NOT NULL UNIQUE,
        platform_id TEXT NOT NULL REFERENCES platforms(id),
        customer_id TEXT REFERENCES customers(id),
        account_type TEXT NOT NULL,
        currency TEXT NOT NULL,
        status TEXT NOT NULL,
        label TEXT,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL
    )""",
    """CREATE INDEX IF NOT EXISTS internal_accounts_owner
        ON internal_accounts (platform_id, customer_id, seq)""",
    # ledger: one row per debit or credit; a balance is the sum of an account's rows
    """CREATE TABLE IF NOT EXISTS ledger_entries (
        seq INTEGER PRIMARY KEY AUTOINCREMENT,
        account_id TEXT NOT NULL REFERENCES internal_accounts(id),
        amount INTEGER NOT NULL,
        held INTEGER NOT NULL DEFAULT 0,
        kind TEXT NOT NULL,
        transaction_id TEXT,
        created_at TEXT NOT NULL
    )""",
    "CREATE INDEX IF NOT EXISTS ledger_entries_account ON ledger_entries (account_id)",
    # external_accounts
    """CREATE TABLE IF NOT EXISTS external_accounts (
        seq INTEGER PRIMARY KEY AUTOINCREMENT,
        id TEXT NOT NULL UNIQUE,
        platform_id TEXT NOT NULL REFERENCES platforms(id),
        customer_id TEXT NOT NULL REFERENCES customers(id),
        currency TEXT NOT NULL,
        account_info TEXT NOT NULL,
        scenario TEXT NOT NULL,
        status TEXT NOT NULL,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL
    )""",
    """CREATE INDEX IF NOT EXISTS external_accounts_owner
        ON external_accounts (platform_id, customer_id, seq)""",
    # quotes: the priced, fixed part is one JSON object; the columns are what changes or
    # what execution needs to find
    """CREATE TABLE IF NOT EXISTS quotes (
        seq INTEGER PRIMARY KEY AUTOINCREMENT,
        id TEXT NOT NULL UNIQUE,
        platform_id TEXT NOT NULL REFERENCES platforms(id),
        customer_id TEXT REFERENCES customers(id),
        fields TEXT NOT NULL,
        status TEXT NOT NULL,
        transaction_id TEXT NOT NULL,
        expires_at TEXT NOT NULL,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL
    )""",
    "CREATE INDEX IF NOT EXISTS quotes_due ON quotes (platform_id, status, expires_at)",
    # transactions
    """CREATE TABLE IF NOT EXISTS transactions (
        seq INTEGER PRIMARY KEY AUTOINCREMENT,
        id TEXT NOT NULL UNIQUE,
        platform_id TEXT NOT NULL REFERENCES platforms(id),
        customer_id TEXT REFERENCES customers(id),
        quote_id TEXT NOT NULL,
        fields TEXT NOT NULL,
        status TEXT NOT NULL,
        failure_reason TEXT,
        refund TEXT,
        settled_at TEXT,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL
    )""",
    """CREATE INDEX IF NOT EXISTS transactions_list
        ON transactions (platform_id, customer_id, status, seq)""",
)
