"""The invitations table (SANDBOX.md, "Cards, agents and invitations")."""

from __future__ import annotations

SCHEMA: tuple[str, ...] = (
    """CREATE TABLE IF NOT EXISTS invitations (
        id TEXT PRIMARY KEY,
        platform_id TEXT NOT NULL,
        inviter_customer_id TEXT,
        claimed_by TEXT,
        invitee_uma TEXT,
        status TEXT NOT NULL,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL
    )""",
)
