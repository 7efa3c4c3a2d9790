"""§8 Limits — rule-based accounts: an ``Idempotency-Key`` of up to 255 characters, a label
of up to 255 characters, USD only and individual customers only.

The label's field name is not shown (profile ``[field_names] internal_account_label``).
Each refusal must be a client error and mint nothing; §7 makes an over-long field a 400
``INVALID_INPUT`` naming it.
"""

from __future__ import annotations

import uuid

import pytest

from conformance.accounts.rule_based import SWEEP_RULE_HOOK
from conformance.contract import clauses
from conformance.contract.failures import check
from conformance.contract.markers import needs_adapter_hook
from conformance.exchange.assertions import assert_invalid_input

pytestmark = [
    pytest.mark.resource("InternalAccount"),
    pytest.mark.writes,
    pytest.mark.feature("rule-based-accounts"),
    needs_adapter_hook(SWEEP_RULE_HOOK),
]

CLAUSE = clauses.LIMITS
LIMIT = 255


@pytest.fixture(scope="module")
def holder(rule_based):
    return rule_based.holder()


def _rejected(response, statement):
    __tracebackhide__ = True
    check(
        400 <= response.status < 500,
        CLAUSE,
        statement,
        expected="a 4xx refusal",
        observed=(response.status, response.content[:300]),
        exchange=response.exchange,
    )


@pytest.mark.requirement("LIMIT-IDEMPOTENCY-KEY-255")
def test_an_idempotency_key_holds_up_to_255_characters(rule_based, holder):
    customer, usd = holder
    body = rule_based.body(customer["id"], usd["id"])
    longest = uuid.uuid4().hex.ljust(LIMIT, "k")
    rule_based.created(
        rule_based.create(body, longest),
        f"an Idempotency-Key of {LIMIT} characters is accepted (§8 Limits)",
    )
    _rejected(
        rule_based.create(body, longest + "k"),
        f"an Idempotency-Key longer than {LIMIT} characters is rejected",
    )


@pytest.mark.requirement("LIMIT-ACCOUNT-LABEL-255")
def test_an_account_label_holds_up_to_255_characters(rule_based, holder, profile):
    customer, usd = holder
    label_field = profile.field_name("internal_account_label")
    account = rule_based.created(
        rule_based.create(rule_based.body(customer["id"], usd["id"], label="L" * LIMIT)),
        f"a label of {LIMIT} characters is accepted (§8 Limits)",
    )
    check(
        account.get(label_field) == "L" * LIMIT,
        clauses.INTERNAL_ACCOUNT,
        "the account carries the platform-supplied label",
        expected=f"{LIMIT} times 'L'",
        observed=account.get(label_field),
        hint="set [field_names] internal_account_label if the target names it otherwise",
    )
    too_long = rule_based.body(customer["id"], usd["id"], label="L" * (LIMIT + 1))
    assert_invalid_input(rule_based.create(too_long), [(label_field,)], CLAUSE)


@pytest.mark.requirement("LIMIT-RULE-BASED-USD-ONLY")
def test_a_rule_based_account_in_another_currency_is_rejected(rule_based, holder):
    customer, usd = holder
    for code in ("EUR", "MXN"):
        _rejected(
            rule_based.create(rule_based.body(customer["id"], usd["id"], currency=code)),
            f"rule-based accounts are USD only: one in {code} is rejected",
        )


@pytest.mark.requirement("LIMIT-RULE-BASED-INDIVIDUALS-ONLY")
def test_a_business_gets_no_rule_based_account(rule_based):
    business, usd = rule_based.holder("BUSINESS")
    _rejected(
        rule_based.create(rule_based.body(business["id"], usd["id"])),
        "rule-based accounts are for individual customers only: one for an approved business "
        "holding a USD account is rejected",
    )
