"""The tables of embedded-wallet authentication (§5) and the wallet accounts' own state.

Kept apart from the modules that use them so ``schema`` can list the DDL.
"""

from __future__ import annotations

SCHEMA: tuple[str, ...] = (
    # credentials (§2 Other records): details holds the per-type part as JSON
    """CREATE TABLE IF NOT EXISTS wallet_credentials (
        seq INTEGER PRIMARY KEY AUTOINCREMENT,
        id TEXT NOT NULL UNIQUE,
        platform_id TEXT NOT NULL REFERENCES platforms(id),
        customer_id TEXT NOT NULL REFERENCES customers(id),
        type TEXT NOT NULL,
        status TEXT NOT NULL,
        details TEXT NOT NULL,
        created_at TEXT NOT NULL
    )""",
    """CREATE INDEX IF NOT EXISTS wallet_credentials_customer
        ON wallet_credentials (customer_id, status)""",
    # sessions: only the public half of the session signing key is kept
    """CREATE TABLE IF NOT EXISTS wallet_sessions (
        seq INTEGER PRIMARY KEY AUTOINCREMENT,
        id TEXT NOT NULL UNIQUE,
        platform_id TEXT NOT NULL REFERENCES platforms(id),
        customer_id TEXT NOT NULL REFERENCES customers(id),
        credential_id TEXT NOT NULL REFERENCES wallet_credentials(id),
        public_key TEXT NOT NULL,
        status TEXT NOT NULL,
        created_at TEXT NOT NULL,
        expires_at TEXT NOT NULL
    )""",
    """CREATE INDEX IF NOT EXISTS wallet_sessions_customer
        ON wallet_sessions (customer_id, status)""",
    # challenges of POST /auth/credentials/{id}/challenge; state holds what verify needs
    """CREATE TABLE IF NOT EXISTS wallet_challenges (
        seq INTEGER PRIMARY KEY AUTOINCREMENT,
        id TEXT NOT NULL UNIQUE,
        credential_id TEXT NOT NULL REFERENCES wallet_credentials(id),
        state TEXT NOT NULL,
        expires_at TEXT NOT NULL,
        used INTEGER NOT NULL DEFAULT 0
    )""",
    # request ids of wallet-signed operations: single use, bound to operation and body
    """CREATE TABLE IF NOT EXISTS wallet_requests (
        id TEXT PRIMARY KEY,
        platform_id TEXT NOT NULL REFERENCES platforms(id),
        customer_id TEXT NOT NULL REFERENCES customers(id),
        operation TEXT NOT NULL,
        body_sha256 TEXT NOT NULL,
        payload TEXT NOT NULL,
        signer_key TEXT,
        context TEXT NOT NULL,
        expires_at TEXT NOT NULL,
        used INTEGER NOT NULL DEFAULT 0
    )""",
    # one row per EMBEDDED_WALLET internal account: the privacy flag and the wallet key
    """CREATE TABLE IF NOT EXISTS wallet_accounts (
        account_id TEXT PRIMARY KEY REFERENCES internal_accounts(id),
        private_enabled INTEGER NOT NULL DEFAULT 0,
        wallet_key TEXT NOT NULL
    )""",
)
