"""§4 Accounts, §7 Errors — an ``Idempotency-Key`` of ``POST /internal-accounts`` reused for
a materially different account answers 409, and mints nothing."""

from __future__ import annotations

import uuid

import pytest

from conformance.accounts.rule_based import SWEEP_RULE_HOOK
from conformance.contract import clauses
from conformance.contract.failures import check
from conformance.contract.markers import needs_adapter_hook
from conformance.exchange.assertions import assert_status

pytestmark = [
    pytest.mark.resource("InternalAccount"),
    pytest.mark.writes,
    pytest.mark.feature("rule-based-accounts"),
    needs_adapter_hook(SWEEP_RULE_HOOK),
]

CLAUSE = clauses.ACCOUNTS_ENDPOINTS
ERRORS_CLAUSE = clauses.ERRORS


@pytest.mark.requirement("RULE-BASED-IDEMPOTENCY-CONFLICT-409")
def test_a_key_reused_for_a_different_account_answers_409(rule_based):
    customer, usd = rule_based.holder()
    key = f"conformance-{uuid.uuid4()}"
    first = rule_based.created(
        rule_based.create(rule_based.body(customer["id"], usd["id"], label="first"), key),
        "the first request with an Idempotency-Key answers 201",
    )
    different = rule_based.body(customer["id"], usd["id"], label="a materially different one")
    response = rule_based.create(different, key)
    assert_status(
        response,
        409,
        ERRORS_CLAUSE,
        "an Idempotency-Key reused for a materially different account answers 409",
    )
    listed = rule_based.funding.internal_accounts(customer["id"])
    rule_based_ids = sorted(a.get("id") for a in listed if a.get("type") == "RULE_BASED")
    check(
        rule_based_ids == [first["id"]],
        CLAUSE,
        "a refused request mints no account: the customer holds only the first rule-based one",
        expected=[first["id"]],
        observed=rule_based_ids,
    )
