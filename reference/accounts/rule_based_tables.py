"""The tables of rule-based accounts (§2 InternalAccount ``RULE_BASED``), of the ownership
verification of external accounts (§3 External account) and of slow payouts (§4 Sandbox
behaviours, 003), and the one read the renderers need: an account's sweep rule.

Kept apart from ``rule_based`` so ``internal_accounts.render`` can read a sweep rule
without importing the routing layer (SANDBOX.md, "Rule-based accounts, ownership
verification, payout scenarios and incoming payments").
"""

from __future__ import annotations

from typing import Any

from reference.kernel.db import Database, from_json

SCHEMA: tuple[str, ...] = (
    # one row per RULE_BASED internal account: its routing rule as given on create
    """CREATE TABLE IF NOT EXISTS rule_based_accounts (
        account_id TEXT PRIMARY KEY REFERENCES internal_accounts(id),
        platform_id TEXT NOT NULL REFERENCES platforms(id),
        sweep_rule TEXT NOT NULL,
        destination_id TEXT NOT NULL
    )""",
    # Idempotency-Key of POST /internal-accounts, per platform, with the canonical body hash
    """CREATE TABLE IF NOT EXISTS rule_based_keys (
        platform_id TEXT NOT NULL REFERENCES platforms(id),
        idempotency_key TEXT NOT NULL,
        body_sha256 TEXT NOT NULL,
        account_id TEXT NOT NULL,
        PRIMARY KEY (platform_id, idempotency_key)
    )""",
    # ownership verification of an external account: the sandbox wallet key standing in
    # for the customer's wallet, and the open challenge
    """CREATE TABLE IF NOT EXISTS ownership_keys (
        account_id TEXT PRIMARY KEY REFERENCES external_accounts(id),
        private_key_pem TEXT NOT NULL,
        challenge TEXT,
        challenge_expires_at TEXT
    )""",
    # slow (003) payouts waiting for the settler (``payout_scenarios``)
    """CREATE TABLE IF NOT EXISTS slow_settlements (
        transaction_id TEXT PRIMARY KEY,
        platform_id TEXT NOT NULL,
        quote_id TEXT NOT NULL,
        due_at TEXT NOT NULL
    )""",
)


def sweep_rule(db: Database, account_id: str) -> dict[str, Any] | None:
    """The stored sweep rule of a rule-based account, None for any other account."""
    row = db.fetchone(
        "SELECT sweep_rule FROM rule_based_accounts WHERE account_id = ?", (account_id,)
    )
    return None if row is None else dict(from_json(row["sweep_rule"]))
