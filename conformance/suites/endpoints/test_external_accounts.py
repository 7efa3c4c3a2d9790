"""§4 Accounts — POST /customers/external-accounts: registering a payout destination, and
using it for more than one quote."""

from __future__ import annotations

import random

import pytest

from conformance.contract import clauses
from conformance.contract.failures import check
from conformance.exchange.assertions import required_json

pytestmark = [pytest.mark.resource("ExternalAccount"), pytest.mark.writes]

CLAUSE = clauses.ACCOUNTS_ENDPOINTS


@pytest.fixture(scope="module")
def wallet(funding):
    return funding.wallet(("USD",))


@pytest.mark.requirement("EXTERNAL-ACCOUNT-CREATE", "SANDBOX-ACCOUNT-NUMBERS-NOT-VALIDATED")
@pytest.mark.parametrize("digits", [6, 12, 17])
def test_an_external_account_is_registered_and_returned(external_accounts, wallet, digits):
    """Any well-formed account number will do: the sandbox does not validate them."""
    number = "".join(random.choice("0123456789") for _ in range(digits - 3)) + "000"
    response = external_accounts.create_external(wallet.customer_id, "USD", number)
    account = required_json(
        response,
        CLAUSE,
        "POST /customers/external-accounts with {customerId, currency, accountInfo{accountType, "
        "...}} registers the account (account numbers are not validated in the sandbox)",
        status=(200, 201),
    )
    check(
        account.get("customerId") == wallet.customer_id
        and account.get("currency") == "USD"
        and (account.get("accountInfo") or {}).get("accountType") == "US_ACCOUNT",
        CLAUSE,
        "the answer is the ExternalAccount registered: the customer, currency and account type "
        "sent",
        expected={"customerId": wallet.customer_id, "currency": "USD", "accountType": "US_ACCOUNT"},
        observed={k: account.get(k) for k in ("customerId", "currency", "accountInfo")},
        exchange=response.exchange,
    )


@pytest.mark.requirement("EXTERNAL-ACCOUNT-REUSABLE")
def test_an_external_account_serves_more_than_one_quote(quotes, transaction_history, wallet):
    corridor = wallet.corridor("USD", "USD")
    for amount in (10_000, 20_000):
        executed = quotes.pay(corridor.source_id, corridor.destination_id, amount)
        transaction_history.settled(wallet.customer_id, executed["transactionId"])
