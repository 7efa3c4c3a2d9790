"""The tables of strong customer authentication (``sca.authentication``): challenged quotes and
each customer's SCA session and wrong-proof count. Apart from ``sca`` so ``schema`` can list
them without importing the services.
"""

from __future__ import annotations

SCHEMA: tuple[str, ...] = (
    # one row per challenged quote: the purposes still to authorize and the current one
    """CREATE TABLE IF NOT EXISTS sca_quotes (
        quote_id TEXT PRIMARY KEY,
        platform_id TEXT NOT NULL,
        customer_id TEXT NOT NULL,
        purposes TEXT NOT NULL,
        step INTEGER NOT NULL,
        state TEXT NOT NULL,
        expires_at TEXT NOT NULL,
        withheld TEXT
    )""",
    "CREATE INDEX IF NOT EXISTS sca_quotes_due ON sca_quotes (platform_id, state, expires_at)",
    # per customer: the SCA session and the wrong-proof count / lock
    """CREATE TABLE IF NOT EXISTS sca_customers (
        customer_id TEXT PRIMARY KEY,
        platform_id TEXT NOT NULL,
        session_expires_at TEXT,
        wrong_proofs INTEGER NOT NULL DEFAULT 0,
        locked_until TEXT
    )""",
)
