"""§2 Resources and their fields — InternalAccount of type ``RULE_BASED``: an additional
account number, in the currency it was created with, for a customer who already holds an
account in that currency; its ``fundingPaymentInstructions`` carry its own routable number.
"""

from __future__ import annotations

import re

import pytest

from conformance.accounts.rule_based import SWEEP_RULE_HOOK, account_numbers
from conformance.contract import clauses
from conformance.contract.failures import check
from conformance.contract.markers import needs_adapter_hook

pytestmark = [
    pytest.mark.resource("InternalAccount"),
    pytest.mark.writes,
    pytest.mark.feature("rule-based-accounts"),
    needs_adapter_hook(SWEEP_RULE_HOOK),
]

CLAUSE = clauses.INTERNAL_ACCOUNT
ISO4217 = re.compile(r"[A-Z]{3}")


@pytest.fixture(scope="module")
def created(rule_based):
    holder = rule_based.holder()
    account = rule_based.new_account(holder)
    return holder, account, rule_based.funding.internal_accounts(holder[0]["id"])


@pytest.mark.requirement("INTERNAL-ACCOUNT-CURRENCY-ISO4217")
def test_the_account_carries_the_iso_4217_currency_it_was_created_with(created):
    _, account, listed = created
    again = [a for a in listed if a.get("id") == account["id"]]
    observed = [account.get("currency"), *(a.get("currency") for a in again)]
    check(
        all(isinstance(c, str) and ISO4217.fullmatch(c) and c == "USD" for c in observed)
        and len(again) == 1,
        CLAUSE,
        "an internal account created with currency USD (an ISO 4217 code) carries it, as "
        "created and as listed",
        expected="USD",
        observed=observed,
    )


@pytest.mark.requirement("RULE-BASED-OWN-ROUTABLE-NUMBER")
def test_the_account_has_its_own_routable_number(created):
    _, account, listed = created
    own = account_numbers(account)
    others = {
        a.get("id"): sorted(account_numbers(a) & own)
        for a in listed
        if a.get("id") != account["id"]
    }
    check(
        bool(own) and not any(others.values()),
        CLAUSE,
        "a rule-based account's fundingPaymentInstructions carry its own routable number, "
        "distinct from the holder's other accounts",
        observed={"own": sorted(own), "shared with": {k: v for k, v in others.items() if v}},
    )


@pytest.mark.requirement("RULE-BASED-SAME-CURRENCY-HOLDER")
def test_the_account_is_an_additional_number_of_a_same_currency_holder(created):
    (customer, usd), account, listed = created
    same = [
        a.get("id")
        for a in listed
        if a.get("currency") == account.get("currency") and a.get("type") != "RULE_BASED"
    ]
    check(
        account.get("customerId") == customer["id"] and usd["id"] in same,
        CLAUSE,
        "a rule-based account is an additional account number of a customer who already "
        "holds an account in the same currency",
        expected={"customerId": customer["id"], "holds": usd["id"]},
        observed={"customerId": account.get("customerId"), "same-currency accounts": same},
    )
