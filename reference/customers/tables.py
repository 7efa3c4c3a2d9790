"""The tables of the customers and verification area (§2 Customer, BeneficialOwner,
Document, Verification), in creation order.

The modules that use them import the routing layer, which imports ``services`` and so
``schema``; keeping the DDL here lets ``schema`` list it without that import cycle.
"""

from __future__ import annotations

SCHEMA: tuple[str, ...] = (
    # customer_store
    """CREATE TABLE IF NOT EXISTS customers (
        seq INTEGER PRIMARY KEY AUTOINCREMENT,
        id TEXT NOT NULL UNIQUE,
        platform_id TEXT NOT NULL REFERENCES platforms(id),
        customer_type TEXT NOT NULL CHECK (customer_type IN ('INDIVIDUAL', 'BUSINESS')),
        fields TEXT NOT NULL,
        status TEXT NOT NULL,
        suffix TEXT,
        consents TEXT NOT NULL DEFAULT '{}',
        email_verified INTEGER NOT NULL DEFAULT 0,
        phone_verified INTEGER NOT NULL DEFAULT 0,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL
    )""",
    "CREATE INDEX IF NOT EXISTS customers_platform ON customers (platform_id, id)",
    # contact_verification
    """CREATE TABLE IF NOT EXISTS contact_codes (
        customer_id TEXT NOT NULL REFERENCES customers(id),
        channel TEXT NOT NULL CHECK (channel IN ('email', 'phone')),
        code TEXT NOT NULL,
        sent_at TEXT NOT NULL,
        PRIMARY KEY (customer_id, channel)
    )""",
    # owners
    """CREATE TABLE IF NOT EXISTS beneficial_owners (
        seq INTEGER PRIMARY KEY AUTOINCREMENT,
        id TEXT NOT NULL UNIQUE,
        platform_id TEXT NOT NULL REFERENCES platforms(id),
        customer_id TEXT NOT NULL REFERENCES customers(id),
        roles TEXT NOT NULL,
        ownership_percentage REAL,
        personal_info TEXT NOT NULL,
        status TEXT NOT NULL,
        created_at TEXT NOT NULL
    )""",
    "CREATE INDEX IF NOT EXISTS beneficial_owners_customer ON beneficial_owners (customer_id)",
    # documents
    """CREATE TABLE IF NOT EXISTS documents (
        seq INTEGER PRIMARY KEY AUTOINCREMENT,
        id TEXT NOT NULL UNIQUE,
        platform_id TEXT NOT NULL REFERENCES platforms(id),
        holder_id TEXT NOT NULL,
        document_type TEXT NOT NULL,
        side TEXT,
        document_number TEXT,
        issuing_authority TEXT,
        country TEXT,
        file_name TEXT,
        content_type TEXT NOT NULL,
        size INTEGER NOT NULL,
        sha256 TEXT NOT NULL,
        created_at TEXT NOT NULL
    )""",
    "CREATE INDEX IF NOT EXISTS documents_holder ON documents (holder_id, document_type)",
    # verifications
    """CREATE TABLE IF NOT EXISTS verifications (
        seq INTEGER PRIMARY KEY AUTOINCREMENT,
        id TEXT NOT NULL UNIQUE,
        platform_id TEXT NOT NULL REFERENCES platforms(id),
        customer_id TEXT NOT NULL REFERENCES customers(id),
        status TEXT NOT NULL,
        errors TEXT NOT NULL,
        created_at TEXT NOT NULL
    )""",
    "CREATE INDEX IF NOT EXISTS verifications_customer ON verifications (customer_id, seq)",
    # kyc_links
    """CREATE TABLE IF NOT EXISTS kyc_links (
        seq INTEGER PRIMARY KEY AUTOINCREMENT,
        id TEXT NOT NULL UNIQUE,
        platform_id TEXT NOT NULL REFERENCES platforms(id),
        customer_id TEXT NOT NULL REFERENCES customers(id),
        redirect_uri TEXT NOT NULL,
        token TEXT NOT NULL,
        idempotency_key TEXT,
        expires_at TEXT NOT NULL,
        used_at TEXT,
        created_at TEXT NOT NULL,
        UNIQUE (platform_id, idempotency_key)
    )""",
    "CREATE INDEX IF NOT EXISTS kyc_links_customer ON kyc_links (customer_id, seq)",
)
