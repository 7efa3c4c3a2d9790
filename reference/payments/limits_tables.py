"""The table behind refused quote rates (SANDBOX.md, "Limits, refused rates and
compliance holds"), apart from ``rate_refusals`` so ``schema`` can list it without importing
the routing layer."""

from __future__ import annotations

SCHEMA: tuple[str, ...] = (
    # one row per quote whose rate the sandbox's market side refuses at execution
    """CREATE TABLE IF NOT EXISTS rate_refusals (
        quote_id TEXT PRIMARY KEY REFERENCES quotes(id),
        platform_id TEXT NOT NULL REFERENCES platforms(id),
        refused_at TEXT NOT NULL
    )""",
)
