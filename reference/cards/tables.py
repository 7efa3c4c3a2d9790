"""Tables of the card slice: cards, card transactions and the sandbox wallet provider's key
(§2 CardTransaction, Card record; SANDBOX.md, "Cards, agents and invitations")."""

from __future__ import annotations

SCHEMA: tuple[str, ...] = (
    """CREATE TABLE IF NOT EXISTS cards (
        id TEXT PRIMARY KEY,
        platform_id TEXT NOT NULL,
        customer_id TEXT,
        account_id TEXT NOT NULL,
        status TEXT NOT NULL,
        last4 TEXT NOT NULL,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL
    )""",
    """CREATE TABLE IF NOT EXISTS card_transactions (
        id TEXT PRIMARY KEY,
        platform_id TEXT NOT NULL,
        card_id TEXT NOT NULL,
        customer_id TEXT,
        account_id TEXT NOT NULL,
        status TEXT NOT NULL,
        direction TEXT NOT NULL,
        currency TEXT NOT NULL,
        amount INTEGER NOT NULL,
        settled INTEGER NOT NULL DEFAULT 0,
        refunded INTEGER NOT NULL DEFAULT 0,
        original_id TEXT,
        declined_reason TEXT,
        merchant TEXT,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL
    )""",
    "CREATE INDEX IF NOT EXISTS card_transactions_card ON card_transactions (card_id)",
    """CREATE TABLE IF NOT EXISTS card_provider_keys (
        id INTEGER PRIMARY KEY CHECK (id = 1),
        private_pem TEXT NOT NULL
    )""",
)
