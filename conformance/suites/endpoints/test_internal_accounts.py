"""§4 Accounts — GET /customers/internal-accounts, and §4 sandbox endpoints — funding an
internal account with POST /sandbox/internal-accounts/{accountId}/fund."""

from __future__ import annotations

import pytest

from conformance.contract import clauses
from conformance.contract.failures import check
from conformance.exchange.assertions import required_json

pytestmark = [pytest.mark.resource("InternalAccount"), pytest.mark.writes]

CLAUSE = clauses.ACCOUNTS_ENDPOINTS
SANDBOX_CLAUSE = clauses.CARDS_AGENTS_SANDBOX_ENDPOINTS


@pytest.fixture(scope="module")
def customer(money_customers):
    return money_customers.approved_customer()


@pytest.mark.requirement("INTERNAL-ACCOUNT-LIST")
def test_a_customers_internal_accounts_are_listed(funding, customer):
    funding.active_account(customer["id"], "USD")  # skips when the target provisions none
    listed = funding.internal_accounts(customer["id"])
    check(
        listed and all(a.get("customerId") == customer["id"] for a in listed),
        CLAUSE,
        "GET /customers/internal-accounts?customerId=<id> returns the customer's internal "
        "accounts, and only them",
        expected=f"accounts whose customerId is {customer['id']}",
        observed=[(a.get("id"), a.get("customerId")) for a in listed],
    )


@pytest.mark.requirement("SANDBOX-FUND-INTERNAL-ACCOUNT", "INTERNAL-ACCOUNT-BALANCES")
@pytest.mark.parametrize("amount", [1, 12_345, 50_000_000])
def test_funding_credits_the_account_and_returns_it(funding, customer, amount):
    account = funding.active_account(customer["id"], "USD")
    before = funding.balances(account)
    response = funding.fund(account["id"], amount)
    statement = (
        "POST /sandbox/internal-accounts/{accountId}/fund with an amount returns the updated "
        "InternalAccount"
    )
    funded = required_json(response, SANDBOX_CLAUSE, statement)
    check(
        funded.get("id") == account["id"],
        SANDBOX_CLAUSE,
        statement,
        expected=f"the account {account['id']}",
        observed=(response.status, response.content[:300]),
        exchange=response.exchange,
    )
    for label, seen in (
        ("the returned account", funding.balances(funded)),
        (
            "the account as listed afterwards",
            funding.account_balances(customer["id"], account["id"]),
        ),
    ):
        check(
            seen.total == before.total + amount and seen.available <= seen.total,
            SANDBOX_CLAUSE,
            f"funding credits the account: {label} holds the amount more in its total balance",
            expected=before.total + amount,
            observed=seen,
        )
