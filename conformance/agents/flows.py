"""Agents as the suite reaches them (§4: ``POST /agents/device-codes/{code}/redeem`` returns
``accessToken``; §5: HTTP Bearer, bound to the agent's customer and its policy).

Creating an agent and its device code is not shown: the adapter hook
``pytest_conformance_agent_device_code`` does it. The access token is registered as a
secret at once (redacted from every artefact) and sent as ``Authorization: Bearer <token>``
through the suite's client (:class:`~conformance.exchange.client.RawAuthorization`), so the exchange
is recorded like any other. Every answer is untrusted: a malformed one fails the clause.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from conformance.contract import clauses
from conformance.contract.failures import check
from conformance.exchange.assertions import required_json
from conformance.exchange.client import ApiResponse, RawAuthorization, TargetClient
from conformance.ground import hookspecs
from conformance.ground.secrets import register_secret

__all__ = [
    "BEARER_CLAUSE",
    "DEVICE_CODE_HOOK",
    "FORBIDDEN_HOOK",
    "REDEEM_CLAUSE",
    "AgentSession",
    "Agents",
]

DEVICE_CODE_HOOK = hookspecs.pytest_conformance_agent_device_code
FORBIDDEN_HOOK = hookspecs.pytest_conformance_agent_forbidden_request
REDEEM_CLAUSE = (
    clauses.CARDS_AGENTS_SANDBOX_ENDPOINTS + " — POST /agents/device-codes/{code}/redeem"
)
BEARER_CLAUSE = clauses.AUTHENTICATION + " — HTTP Bearer (agent)"

Call = Callable[..., Any]


@dataclass(frozen=True, slots=True)
class AgentSession:
    """An agent of ``customer_id`` holding a redeemed access token."""

    customer_id: str
    token: str
    client: TargetClient

    @property
    def auth(self) -> RawAuthorization:
        return RawAuthorization(f"Bearer {self.token}")

    def request(self, method: str, path: str, **kwargs: Any) -> ApiResponse:
        """A request made with the agent's bearer token (not schema-validated unless asked)."""
        kwargs.setdefault("validate", False)
        return self.client.request(method, path, auth=self.auth, **kwargs)


class Agents:
    """Agents for one session, through the adapter's agent hooks."""

    def __init__(self, client: TargetClient, call: Call) -> None:
        self.client = client
        self._call = call

    def device_code(self, customer_id: str) -> str:
        __tracebackhide__ = True
        code = self._call(DEVICE_CODE_HOOK, customer_id=customer_id)
        check(
            isinstance(code, str) and code.strip() != "",
            REDEEM_CLAUSE,
            "a device code to redeem is a non-empty string",
            observed=code,
            hint=f"the adapter hook {DEVICE_CODE_HOOK.__name__} answers it",
        )
        return str(code)

    def redeem(self, code: str) -> ApiResponse:
        """``POST /agents/device-codes/{code}/redeem`` (no body is shown)."""
        return self.client.post(f"/agents/device-codes/{code}/redeem", validate=False)

    def session(self, customer_id: str) -> AgentSession:
        """A new agent of the customer with its access token, redeemed and checked."""
        __tracebackhide__ = True
        response = self.redeem(self.device_code(customer_id))
        body = required_json(
            response, REDEEM_CLAUSE, "redeeming a device code succeeds and returns accessToken"
        )
        token = body.get("accessToken") if isinstance(body, dict) else None
        check(
            isinstance(token, str) and token.strip() != "",
            REDEEM_CLAUSE,
            "redeeming a device code returns accessToken for agent bearer authentication",
            observed=sorted(body) if isinstance(body, dict) else body,
            exchange=response.exchange,
        )
        assert isinstance(token, str)
        register_secret(token)
        return AgentSession(customer_id, token, self.client)
