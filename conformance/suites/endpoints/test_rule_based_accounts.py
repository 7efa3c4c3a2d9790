"""§4 Accounts — ``POST /internal-accounts`` creates rule-based accounts: 201 with the new
account, 200 with the first account when an ``Idempotency-Key`` is repeated, a new account
number for every request without a key, and nothing for a platform without the feature;
§4 sandbox fund — funding a rule-based account triggers its sweep.

The sweep rule's inner structure is not shown (adapter hook
``pytest_conformance_sweep_rule``). A sweep is observed through balances: the money sent
to the rule-based account's number ends at the rule's destination.
"""

from __future__ import annotations

import time
import uuid

import pytest

from conformance.accounts.rule_based import SWEEP_RULE_HOOK, account_numbers
from conformance.contract import clauses
from conformance.contract.failures import check, fail
from conformance.contract.markers import needs_adapter_hook
from conformance.exchange.assertions import assert_invalid_input, required_json

pytestmark = [
    pytest.mark.resource("InternalAccount"),
    pytest.mark.writes,
    pytest.mark.feature("rule-based-accounts"),
    needs_adapter_hook(SWEEP_RULE_HOOK),
]

CLAUSE = clauses.ACCOUNTS_ENDPOINTS
SANDBOX_CLAUSE = clauses.CARDS_AGENTS_SANDBOX_ENDPOINTS
SWEPT = 12_345


@pytest.fixture(scope="module")
def holder(rule_based):
    return rule_based.holder()


@pytest.mark.requirement("RULE-BASED-CREATE-201")
def test_a_rule_based_account_is_created_with_201(rule_based, holder):
    customer, _ = holder
    account = rule_based.new_account(holder)
    observed = {k: account.get(k) for k in ("type", "customerId", "currency", "sweepRule")}
    check(
        observed["type"] == "RULE_BASED"
        and observed["customerId"] == customer["id"]
        and observed["currency"] == "USD"
        and isinstance(observed["sweepRule"], dict),
        CLAUSE,
        "the 201 answer is the new InternalAccount: type RULE_BASED, the customer's id, "
        "currency USD and its sweepRule",
        observed=observed,
    )


@pytest.mark.requirement("RULE-BASED-IDEMPOTENT-REPLAY")
def test_repeating_the_idempotency_key_returns_the_first_account(rule_based, holder):
    customer, usd = holder
    body = rule_based.body(customer["id"], usd["id"])
    key = f"conformance-{uuid.uuid4()}"
    listed_before = _rule_based_ids(rule_based, customer)
    first = rule_based.created(
        rule_based.create(body, key), "the first request with an Idempotency-Key answers 201"
    )
    again = rule_based.create(body, key)
    repeated = required_json(
        again,
        CLAUSE,
        "repeating POST /internal-accounts with an Idempotency-Key already used answers 200",
        status=200,
    )
    check(
        repeated.get("id") == first["id"] and account_numbers(repeated) == account_numbers(first),
        CLAUSE,
        "the repeat answers the first account (same id and account number)",
        expected=(first["id"], sorted(account_numbers(first))),
        observed=(again.json.get("id"), sorted(account_numbers(again.json))),
        exchange=again.exchange,
    )
    minted = _rule_based_ids(rule_based, customer) - listed_before
    check(
        minted == {first["id"]},
        CLAUSE,
        "a repeated Idempotency-Key mints no second account",
        expected=[first["id"]],
        observed=sorted(minted),
    )


def _rule_based_ids(rule_based, customer):
    listed = rule_based.funding.internal_accounts(customer["id"])
    return {a.get("id") for a in listed if a.get("type") == "RULE_BASED"}


@pytest.mark.requirement("RULE-BASED-NO-KEY-NEW-NUMBER")
def test_without_a_key_every_request_mints_a_new_account_number(rule_based, holder):
    customer, usd = holder
    body = rule_based.body(customer["id"], usd["id"])
    statement = "POST /internal-accounts without an Idempotency-Key answers 201"
    first = rule_based.created(rule_based.create(body), statement)
    second = rule_based.created(rule_based.create(body), statement)
    numbers = (account_numbers(first), account_numbers(second))
    check(
        first.get("id") != second.get("id") and all(numbers) and not numbers[0] & numbers[1],
        CLAUSE,
        "without an Idempotency-Key every request mints a new account with a new account number",
        observed={first.get("id"): sorted(numbers[0]), second.get("id"): sorted(numbers[1])},
    )


@pytest.mark.requirement("RULE-BASED-FEATURE-ENABLED")
@pytest.mark.feature("rule-based-accounts-off-for-second-platform")
def test_a_platform_without_the_feature_cannot_create_one(rule_based, second_client):
    """The profile declares that the second platform lacks the feature; it asks for a
    rule-based account for its own approved individual holding a USD account."""
    elsewhere = rule_based.acting_as(second_client)
    customer, usd = elsewhere.holder()
    response = elsewhere.create(elsewhere.body(customer["id"], usd["id"]))
    check(
        400 <= response.status < 500,
        CLAUSE,
        "rule-based accounts must be enabled for the platform: a platform without the "
        "feature cannot create one",
        expected="a 4xx refusal",
        observed=(response.status, response.content[:300]),
        exchange=response.exchange,
    )


@pytest.mark.requirement("RULE-BASED-FUND-TRIGGERS-SWEEP")
def test_funding_a_rule_based_account_sweeps_to_the_destination(rule_based, holder, profile):
    customer, usd = holder
    account = rule_based.new_account(holder)
    before = rule_based.funding.account_balances(customer["id"], usd["id"])
    rule_based.funding.fund_ok(account["id"], SWEPT)
    deadline = time.monotonic() + profile.webhook_timeout
    pause = 0.05
    while True:
        after = rule_based.funding.account_balances(customer["id"], usd["id"])
        swept = rule_based.funding.account_balances(customer["id"], account["id"])
        if after.total - before.total == SWEPT and swept.total == 0:
            return
        if time.monotonic() >= deadline:
            break
        time.sleep(min(pause, max(deadline - time.monotonic(), 0)))
        pause = min(pause * 2, 1.0)
    fail(
        SANDBOX_CLAUSE,
        "funding a rule-based account with POST /sandbox/internal-accounts/{accountId}/fund "
        "triggers its sweep: the amount ends at the rule's destination",
        expected={"destination gained": SWEPT, "rule-based account total": 0},
        observed={
            "destination gained": after.total - before.total,
            "rule-based account total": swept.total,
        },
        hint=f"waited {profile.webhook_timeout:g} s (the profile's webhook_timeout)",
    )


@pytest.mark.requirement("RULE-BASED-TYPE-REQUIRED")
def test_a_request_without_type_rule_based_is_rejected(rule_based, holder):
    customer, usd = holder
    body = rule_based.body(customer["id"], usd["id"])
    del body["type"]
    assert_invalid_input(rule_based.create(body), [("type",)], CLAUSE)
    other = rule_based.create({**body, "type": "INTERNAL_FIAT"})
    check(
        400 <= other.status < 500,
        CLAUSE,
        "POST /internal-accounts creates RULE_BASED accounts only: another type is rejected",
        expected="4xx",
        observed=(other.status, other.content[:300]),
        exchange=other.exchange,
    )


@pytest.mark.requirement("RULE-BASED-CUSTOMER-REQUIRED")
def test_a_platform_owned_rule_based_account_is_rejected(rule_based, holder):
    customer, usd = holder
    body = rule_based.body(customer["id"], usd["id"])
    del body["customerId"]
    assert_invalid_input(rule_based.create(body), [("customerId",)], CLAUSE)


@pytest.mark.requirement("RULE-BASED-SWEEP-RULE-REQUIRED")
def test_a_rule_based_account_without_a_sweep_rule_is_rejected(rule_based, holder):
    customer, usd = holder
    body = rule_based.body(customer["id"], usd["id"])
    del body["sweepRule"]
    assert_invalid_input(rule_based.create(body), [("sweepRule",)], CLAUSE)
