"""Tables of agents: the agent, its device codes, its access tokens and the transactions it
initiated that wait for the platform's approval (SANDBOX.md, "Cards, agents and
invitations")."""

from __future__ import annotations

SCHEMA: tuple[str, ...] = (
    """CREATE TABLE IF NOT EXISTS agents (
        id TEXT PRIMARY KEY,
        platform_id TEXT NOT NULL,
        customer_id TEXT NOT NULL,
        name TEXT,
        policy TEXT NOT NULL,
        status TEXT NOT NULL,
        created_at TEXT NOT NULL
    )""",
    """CREATE TABLE IF NOT EXISTS agent_device_codes (
        code TEXT PRIMARY KEY,
        agent_id TEXT NOT NULL,
        expires_at TEXT NOT NULL,
        redeemed INTEGER NOT NULL DEFAULT 0
    )""",
    """CREATE TABLE IF NOT EXISTS agent_tokens (
        token_sha256 TEXT PRIMARY KEY,
        agent_id TEXT NOT NULL,
        created_at TEXT NOT NULL
    )""",
    """CREATE TABLE IF NOT EXISTS agent_approvals (
        transaction_id TEXT PRIMARY KEY,
        platform_id TEXT NOT NULL,
        quote_id TEXT NOT NULL,
        agent_id TEXT NOT NULL,
        status TEXT NOT NULL,
        created_at TEXT NOT NULL
    )""",
)
