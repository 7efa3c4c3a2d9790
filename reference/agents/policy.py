"""What an agent's bearer token may do (§5 HTTP Bearer: bound to the agent's customer and
subject to the agent's policy); SANDBOX.md, "Cards, agents and invitations".

:class:`AgentPolicyMiddleware` runs after authentication. A request authenticated by an
agent's token is matched against the operations an agent can have; any other request is
``403 AGENT_POLICY_DENIED`` (platform endpoints, sandbox endpoints, configuration, ...). A
matched operation outside the agent's policy is the same ``403``; one about another
customer's records is ``404 NOT_FOUND`` (the agent does not learn they exist). An agent's
execute of its customer's ``PENDING`` quote is not carried out: it waits for the platform's
``POST /transactions/{transactionId}/approve`` and answers ``202`` with the quote.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any
from urllib.parse import parse_qs

from starlette.datastructures import Headers
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from reference.accounts import internal_accounts
from reference.agents import approvals as agent_approvals
from reference.agents.bearer import AGENT_SCOPE_KEY
from reference.agents.store import Agent
from reference.kernel.errors import ApiError, render
from reference.kernel.request_body import LARGEST_LIMIT, decode_json_object, read_raw
from reference.kernel.seams import seam
from reference.kernel.services import Services
from reference.kernel.sync_calls import call_sync
from reference.payments import quote_store
from reference.payments import transaction_store as txns

Owner = Callable[[], str | None]  # the customer the request is about (None: unknown)

WITHIN_POLICY = seam(
    "agents.within_policy",
    "whether an agent's request is an operation its policy allows (context: agent; operation,"
    " the agent operation the request is, None when it is none; method; path)",
)
OWN_CUSTOMER = seam(
    "agents.own_customer",
    "whether the record an agent's request is about belongs to the agent's customer (context:"
    " agent; operation; owner, the customer the record belongs to, None when unknown)",
)


def _denied(message: str) -> ApiError:
    return ApiError(403, "AGENT_POLICY_DENIED", message)


class AgentPolicyMiddleware:
    """Refuses an agent's requests outside its customer or its policy."""

    def __init__(self, app: ASGIApp, services: Services) -> None:
        self.app = app
        self.services = services

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        agent: Agent | None = scope.get(AGENT_SCOPE_KEY)
        if scope["type"] != "http" or agent is None:
            await self.app(scope, receive, send)
            return
        messages: list[Message] = []
        try:
            if scope["method"] == "POST":  # bounded like every body (the route re-bounds it)
                messages = await read_raw(receive, Headers(scope=scope), LARGEST_LIMIT)
            body = b"".join(message.get("body", b"") for message in messages)
            early = await call_sync(self.services.settings, self._judge, scope, agent, body)
        except ApiError as error:
            await render(error, self.services.settings)(scope, receive, send)
            return
        if early is not None:
            await early(scope, receive, send)
            return

        async def replay() -> Message:
            return messages.pop(0) if messages else {"type": "http.request", "body": b""}

        await self.app(scope, replay if scope["method"] == "POST" else receive, send)

    def _judge(self, scope: Scope, agent: Agent, body: bytes) -> Any:
        base = self.services.settings.base_path
        path = str(scope["path"])
        path = path[len(base) :] if path.startswith(base) else path
        path = path.rstrip("/") or "/"
        query = {k: v[0] for k, v in parse_qs(scope.get("query_string", b"").decode()).items()}
        found = self._operation(scope["method"], path, query, body, agent)
        seams = self.services.settings.seams
        operation = None if found is None else found[0]
        allowed = operation is not None and operation in agent.operations
        if not seams.apply(
            WITHIN_POLICY,
            allowed,
            agent=agent,
            operation=operation,
            method=scope["method"],
            path=path,
        ):
            if found is None:
                raise _denied(f"{scope['method']} {path} is not an agent operation")
            raise _denied(f"{operation} is outside this agent's policy")
        if found is None:
            return None
        operation, owner = found
        customer_id = owner()
        if not seams.apply(
            OWN_CUSTOMER,
            customer_id == agent.customer_id,
            agent=agent,
            operation=operation,
            owner=customer_id,
        ):
            raise ApiError(404, "NOT_FOUND", f"{path} is not a record of the agent's customer")
        if operation == "EXECUTE_QUOTE":
            return agent_approvals.hold(self.services, agent, path.split("/")[2])
        return None

    def _operation(
        self, method: str, path: str, query: dict[str, str], body: bytes, agent: Agent
    ) -> tuple[str, Owner] | None:
        db, platform_id = self.services.db, agent.platform_id

        def quote_owner(quote_id: str) -> Owner:
            return lambda: getattr(quote_store.load(db, platform_id, quote_id), "customer_id", None)

        fixed = ("internal-accounts", "external-accounts", "agreements", "end-user-terms")
        m = re.fullmatch(r"/customers/([^/]+)", path)
        if method == "GET" and m is not None and m.group(1) not in fixed:
            customer_id = m.group(1)
            return "READ_CUSTOMER", lambda: customer_id
        if method == "GET" and path == "/customers/internal-accounts":
            return "READ_ACCOUNTS", lambda: query.get("customerId")
        if method == "GET" and path == "/transactions":
            return "READ_TRANSACTIONS", lambda: query.get("customerId")
        if method == "GET" and (m := re.fullmatch(r"/transactions/([^/]+)", path)):
            found = m.group(1)
            return "READ_TRANSACTIONS", lambda: getattr(
                txns.load(db, platform_id, found), "customer_id", None
            )
        if method == "GET" and (m := re.fullmatch(r"/quotes/([^/]+)", path)):
            return "READ_QUOTES", quote_owner(m.group(1))
        if method == "POST" and (m := re.fullmatch(r"/quotes/([^/]+)/execute", path)):
            return "EXECUTE_QUOTE", quote_owner(m.group(1))
        if method == "POST" and path == "/quotes":
            return "CREATE_QUOTE", lambda: _quote_source_owner(self.services, platform_id, body)
        return None


def _quote_source_owner(services: Services, platform_id: str, body: bytes) -> str | None:
    """The customer whose money a quote request would move (its source)."""
    # The route would refuse a malformed body: refused here first, in the same words
    parsed = decode_json_object(body)
    source = parsed.get("source") if isinstance(parsed, dict) else None
    if not isinstance(source, dict):
        return None
    if isinstance(source.get("accountId"), str):
        account = internal_accounts.load(services.db, platform_id, source["accountId"])
        return account.customer_id if account is not None else None
    customer_id = source.get("customerId")
    return customer_id if isinstance(customer_id, str) else None
