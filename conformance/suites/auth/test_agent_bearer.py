"""§5 Authentication — HTTP Bearer (agent): the ``accessToken`` returned when redeeming a
device code authenticates requests for the agent's customer only, subject to the agent's
policy. Agents and device codes come from the adapter (not shown)."""

from __future__ import annotations

import secrets

import pytest

from conformance.agents.flows import BEARER_CLAUSE, DEVICE_CODE_HOOK, FORBIDDEN_HOOK
from conformance.contract import endpoint_schemas as contract
from conformance.contract.failures import check
from conformance.contract.markers import needs_adapter_hook
from conformance.exchange.assertions import assert_unauthorized
from conformance.exchange.client import RawAuthorization

pytestmark = [
    pytest.mark.resource("Agent"),
    pytest.mark.writes,
    needs_adapter_hook(DEVICE_CODE_HOOK),
]


def _customers(money_customers, count):
    return [money_customers.approved_customer(["USD"]) for _ in range(count)]


@pytest.mark.requirement("AGENT-BEARER-BOUND-CUSTOMER")
def test_an_agent_token_reaches_its_own_customer_only(agents, money_customers):
    mine, other = _customers(money_customers, 2)
    agent = agents.session(mine["id"])
    own = agent.request("GET", f"/customers/{mine['id']}")
    if not 200 <= own.status < 300:
        pytest.skip(f"this agent may not read its customer ({own.status}); its policy is not shown")
    body = own.json
    check(
        isinstance(body, dict) and body.get("id") == mine["id"],
        BEARER_CLAUSE,
        "an agent's token reads its own customer",
        expected=mine["id"],
        observed=body.get("id") if isinstance(body, dict) else body,
        exchange=own.exchange,
    )
    foreign = agent.request("GET", f"/customers/{other['id']}")
    check(
        not 200 <= foreign.status < 300,
        BEARER_CLAUSE,
        "the token is bound to the agent's customer: another customer's record is refused",
        expected="a 4xx refusal",
        observed=(foreign.status, foreign.content[:200]),
        exchange=foreign.exchange,
    )
    listed = agent.request(
        "GET", "/customers/internal-accounts", params={"customerId": other["id"]}
    )
    items = contract.list_items(listed.json) if 200 <= listed.status < 300 else []
    leaked = [i.get("id") for i in items or [] if isinstance(i, dict)]
    check(
        not leaked,
        BEARER_CLAUSE,
        "the token is bound to the agent's customer: another customer's accounts are not listed",
        observed=leaked,
        exchange=listed.exchange,
    )


@pytest.mark.requirement("AGENT-BEARER-BOUND-CUSTOMER")
def test_a_forged_bearer_token_is_refused(client, money_customers):
    (customer,) = _customers(money_customers, 1)
    forged = RawAuthorization("Bearer " + secrets.token_urlsafe(32))
    response = client.get(f"/customers/{customer['id']}", auth=forged, validate=False)
    assert_unauthorized(response, "a bearer token that no device code produced is refused")


@needs_adapter_hook(FORBIDDEN_HOOK)
@pytest.mark.requirement("AGENT-BEARER-POLICY")
def test_an_operation_outside_the_agents_policy_is_refused(agents, adapter, money_customers):
    (customer,) = _customers(money_customers, 1)
    agent = agents.session(customer["id"])
    probe = adapter.call(FORBIDDEN_HOOK, customer_id=customer["id"])
    check(
        isinstance(probe, dict)
        and isinstance(probe.get("method"), str)
        and isinstance(probe.get("path"), str),
        BEARER_CLAUSE,
        "the adapter names a request outside the agent's policy as {method, path, json?}",
        observed=probe,
        hint=f"the adapter hook {FORBIDDEN_HOOK.__name__} answers it",
    )
    kwargs = {"json": probe["json"]} if "json" in probe else {}
    response = agent.request(probe["method"].upper(), probe["path"], **kwargs)
    check(
        400 <= response.status < 500,
        BEARER_CLAUSE,
        "requests with an agent's token are subject to its policy: an operation outside it is "
        "refused",
        expected="a 4xx refusal",
        observed=(response.status, response.content[:200]),
        exchange=response.exchange,
    )
