"""§2 Resources and their fields — ExternalAccount, as POST /customers/external-accounts
returns it.

The client checks the answer against the ExternalAccount schema (status among ACTIVE,
PENDING_OWNERSHIP_VERIFICATION, UNVERIFIED; accountInfo with accountType). The account
number may come back masked, so only the fields that identify the account are compared.
"""

from __future__ import annotations

import re

import pytest

from conformance.contract import clauses
from conformance.contract.failures import check

pytestmark = [pytest.mark.resource("ExternalAccount"), pytest.mark.writes]

CLAUSE = clauses.EXTERNAL_ACCOUNT
UUID = r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}"
STATUSES = {"ACTIVE", "PENDING_OWNERSHIP_VERIFICATION", "UNVERIFIED"}


@pytest.fixture(scope="module")
def customer(money_customers):
    return money_customers.approved_customer(money_customers.currencies())


@pytest.mark.requirement(
    "EXTERNAL-ACCOUNT-FIELDS", "EXTERNAL-ACCOUNT-STATUS-VALUES", "EXTERNAL-ACCOUNT-INFO-SHAPE"
)
@pytest.mark.parametrize("currency", ["USD", "EUR"])
def test_an_external_account_carries_its_owner_currency_and_account_info(
    external_accounts, customer, currency
):
    if currency not in (customer.get("currencies") or []):
        pytest.skip(f"the platform does not support {currency}")
    sent = external_accounts.external_body(customer["id"], currency, "400012345000")
    account = external_accounts.external_account(customer["id"], currency, number="400012345000")
    check(
        re.fullmatch(rf"ExternalAccount:{UUID}", str(account.get("id"))),
        clauses.CONVENTIONS,
        "record identifiers have the form ExternalAccount:<uuid>",
        observed=account.get("id"),
        requirement="COMMON-ID-FORMAT",
    )
    check(
        account.get("customerId") == customer["id"] and account.get("currency") == currency,
        CLAUSE,
        "an external account carries its id, its customerId and the currency it was "
        "registered with",
        expected={"customerId": customer["id"], "currency": currency},
        observed={k: account.get(k) for k in ("customerId", "currency")},
        requirement="EXTERNAL-ACCOUNT-FIELDS",
    )
    check(
        account.get("status") in STATUSES,
        CLAUSE,
        "status is one of ACTIVE, PENDING_OWNERSHIP_VERIFICATION, UNVERIFIED",
        observed=account.get("status"),
        requirement="EXTERNAL-ACCOUNT-STATUS-VALUES",
    )
    info = account.get("accountInfo") or {}
    check(
        info.get("accountType") == sent["accountInfo"]["accountType"],
        CLAUSE,
        "accountInfo carries the accountType it was registered with (a US bank account is "
        "US_ACCOUNT) and its type-specific fields",
        expected=sent["accountInfo"]["accountType"],
        observed=info,
        requirement="EXTERNAL-ACCOUNT-INFO-SHAPE",
    )
