"""The reference adapter's agent hooks (SANDBOX.md, "Cards, agents and invitations");
``reference.adapter`` re-exports them. Agent creation and device codes are not shown (§4);
the sandbox's ``POST /agents`` and ``POST /agents/{agentId}/device-codes`` stand in."""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

from reference.adapter.transport import member as _member
from reference.adapter.transport import post as _post


def pytest_conformance_agent_device_code(profile: Any, customer_id: str) -> str:
    """A new agent for the customer with the default policy (read the customer, its
    accounts, transactions and quotes; create and execute quotes); its device code."""
    agent = _post(profile, "/agents", {"customerId": customer_id, "name": "conformance agent"})
    agent_id = _member(agent, "id", "the answer to POST /agents")
    path = f"/agents/{quote(str(agent_id), safe=':')}/device-codes"
    return str(_member(_post(profile, path, {}), "deviceCode", f"the answer to POST {path}"))


def pytest_conformance_agent_forbidden_request(profile: Any, customer_id: str) -> dict[str, Any]:
    """A request about the agent's own customer that the default policy does not allow:
    registering an external account (a new payout destination)."""
    body = {
        "customerId": customer_id,
        "currency": "USD",
        "accountInfo": {
            "accountType": "US_ACCOUNT",
            "accountNumber": "000123450001",
            "routingNumber": "021000021",
            "accountCategory": "CHECKING",
            "accountHolderName": "Agent Destination",
        },
    }
    return {"method": "POST", "path": "/customers/external-accounts", "json": body}
