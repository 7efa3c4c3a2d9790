"""Agents as stored: the record, its policy's operations, and lookup by access token
(SANDBOX.md, "Cards, agents and invitations")."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any

from reference.kernel.db import Database, from_json


@dataclass(frozen=True, slots=True)
class Agent:
    """One agent as stored."""

    id: str
    platform_id: str
    customer_id: str
    name: str | None
    operations: tuple[str, ...]
    status: str
    created_at: str


def _agent(row: Any) -> Agent:
    policy = from_json(row["policy"]) or {}
    return Agent(
        id=row["id"],
        platform_id=row["platform_id"],
        customer_id=row["customer_id"],
        name=row["name"],
        operations=tuple(policy.get("operations", ())),
        status=row["status"],
        created_at=row["created_at"],
    )


def render(agent: Agent) -> dict[str, Any]:
    return {
        "id": agent.id,
        "customerId": agent.customer_id,
        "name": agent.name,
        "policy": {"operations": list(agent.operations)},
        "status": agent.status,
        "createdAt": agent.created_at,
    }


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def by_token(db: Database, token: str) -> Agent | None:
    """The agent an access token belongs to, or None."""
    row = db.fetchone(
        """SELECT agents.* FROM agent_tokens JOIN agents ON agents.id = agent_tokens.agent_id
           WHERE agent_tokens.token_sha256 = ?""",
        (token_hash(token),),
    )
    return None if row is None else _agent(row)
