"""Agents: delegated credentials operating for one customer (§1 item 8, §4, §5 HTTP Bearer).

Shown: ``POST /agents/device-codes/{code}/redeem`` returns ``accessToken``; the bearer token
is bound to the agent's customer and subject to its policy. Not shown, so the reference's
choice (SANDBOX.md, "Cards, agents and invitations"):

- ``POST /agents {customerId, name?, policy?}`` → ``201`` ``{id: Agent:<uuid>, customerId,
  name, policy: {operations: [...]}, status: ACTIVE, createdAt}``; ``policy.operations`` is
  a subset of :data:`OPERATIONS` (default: all of them).
- ``POST /agents/{agentId}/device-codes`` → ``201 {deviceCode, expiresAt}`` (10 minutes).
- Redeem (platform credentials, like every endpoint) → ``200 {accessToken, tokenType:
  Bearer, agentId, customerId}``; a code is single-use (``409 DEVICE_CODE_REDEEMED``),
  unknown or expired → ``404``.
"""

from __future__ import annotations

import secrets
import uuid
from datetime import timedelta
from typing import Any

from starlette.responses import JSONResponse, Response

from reference.agents.store import Agent, render, token_hash
from reference.customers import store as customer_store
from reference.kernel.clock import iso, parse_iso, utc_now
from reference.kernel.db import to_json
from reference.kernel.errors import ApiError
from reference.kernel.routing import ApiRequest, Operation, api_route
from reference.kernel.seams import seam
from reference.kernel.validation import Problems

OPERATIONS = (
    "READ_CUSTOMER",
    "READ_ACCOUNTS",
    "READ_TRANSACTIONS",
    "READ_QUOTES",
    "CREATE_QUOTE",
    "EXECUTE_QUOTE",
)
CODE_LIFETIME = timedelta(minutes=10)

REDEEMED = seam(
    "agents.redeemed_body",
    "the body answered for a redeemed device code, {accessToken, tokenType, agentId,"
    " customerId} (context: none)",
)


def _policy(problems: Problems, body: dict[str, Any]) -> list[str]:
    policy = body.get("policy")
    if policy is None:
        return list(OPERATIONS)
    operations = policy.get("operations") if isinstance(policy, dict) else None
    if not isinstance(operations, list) or not all(o in OPERATIONS for o in operations):
        allowed = ", ".join(OPERATIONS)
        problems.add("policy.operations", "ONE_OF", f"a list of {allowed}")
        return []
    return list(operations)


def create(request: ApiRequest) -> Response:
    """``POST /agents {customerId, name?, policy?}`` → ``201`` the agent; a ``customerId``
    naming no customer of the platform is 404, before the rest of the body is judged."""
    services, body = request.services, request.body
    problems = Problems()
    with services.db.transaction():
        customer = customer_store.named_in_body(
            problems, services.db, request.platform.id, body.get("customerId"), "customerId"
        )
        operations = _policy(problems, body)
        problems.raise_if_any()
        assert customer is not None  # else a problem was recorded
        name = body.get("name") if isinstance(body.get("name"), str) else None
        agent = Agent(
            f"Agent:{uuid.uuid4()}", request.platform.id, customer.id, name,
            tuple(operations), "ACTIVE", iso(utc_now()),
        )  # fmt: skip
        services.db.execute(
            """INSERT INTO agents (id, platform_id, customer_id, name, policy, status,
               created_at) VALUES (?, ?, ?, ?, ?, ?, ?)""",
            (agent.id, agent.platform_id, agent.customer_id, agent.name,
             to_json({"operations": operations}), agent.status, agent.created_at),
        )  # fmt: skip
    return JSONResponse(render(agent), status_code=201)


def device_code(request: ApiRequest) -> Response:
    """``POST /agents/{agentId}/device-codes`` → ``201 {deviceCode, expiresAt}``."""
    db = request.services.db
    agent_id = request.path_params["agentId"]
    with db.transaction():
        row = db.fetchone(
            "SELECT * FROM agents WHERE id = ? AND platform_id = ?", (agent_id, request.platform.id)
        )
        if row is None:
            raise ApiError(404, "NOT_FOUND", f"no agent {agent_id}")
        code = "-".join(secrets.token_hex(2).upper() for _ in range(3))
        expires = iso(utc_now() + CODE_LIFETIME)
        db.execute(
            "INSERT INTO agent_device_codes (code, agent_id, expires_at) VALUES (?, ?, ?)",
            (code, agent_id, expires),
        )
    return JSONResponse({"deviceCode": code, "expiresAt": expires}, status_code=201)


def redeem(request: ApiRequest) -> Response:
    """``POST /agents/device-codes/{code}/redeem`` → ``{accessToken, tokenType, ...}``."""
    db = request.services.db
    code = request.path_params["code"]
    with db.transaction():
        row = db.fetchone(
            """SELECT agent_device_codes.*, agents.customer_id FROM agent_device_codes
               JOIN agents ON agents.id = agent_device_codes.agent_id
               WHERE code = ? AND agents.platform_id = ?""",
            (code, request.platform.id),
        )
        if row is None or parse_iso(row["expires_at"]) <= utc_now():
            raise ApiError(404, "NOT_FOUND", f"unknown or expired device code {code}")
        if row["redeemed"]:
            raise ApiError(409, "DEVICE_CODE_REDEEMED", f"device code {code} was already redeemed")
        db.execute("UPDATE agent_device_codes SET redeemed = 1 WHERE code = ?", (code,))
        token = "agt_" + secrets.token_urlsafe(32)
        db.execute(
            "INSERT INTO agent_tokens (token_sha256, agent_id, created_at) VALUES (?, ?, ?)",
            (token_hash(token), row["agent_id"], iso(utc_now())),
        )
    body = {
        "accessToken": token,
        "tokenType": "Bearer",
        "agentId": row["agent_id"],
        "customerId": row["customer_id"],
    }
    return JSONResponse(request.services.settings.seams.apply(REDEEMED, body))


ROUTES = [
    api_route("/agents", Operation("POST", create, body=True)),
    api_route("/agents/{agentId}/device-codes", Operation("POST", device_code)),
    api_route("/agents/device-codes/{code}/redeem", Operation("POST", redeem)),
]
