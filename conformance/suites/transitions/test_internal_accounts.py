"""§3 Internal account and §3 Customer verification — accounts become ACTIVE when
provisioned, and money does not move for a customer who is not approved.

While a customer is PENDING it may finish account setup, but funding and money movement are
blocked; a PENDING account can neither send nor receive. How a customer's internal accounts
come to exist is not shown, so a target that lists none for a new customer leaves the
account-level checks without an account (recorded as an advisory).
"""

from __future__ import annotations

import pytest

from conformance.contract import clauses
from conformance.contract.failures import check
from conformance.customers.onboarding import status_field
from conformance.payments.quote_bodies import quote_body

pytestmark = [pytest.mark.resource("InternalAccount"), pytest.mark.writes]

CLAUSE = clauses.INTERNAL_ACCOUNT_STATES
VERIFICATION_CLAUSE = clauses.CUSTOMER_VERIFICATION_STATES


@pytest.mark.requirement("INTERNAL-ACCOUNT-PENDING-TO-ACTIVE")
def test_accounts_of_a_customer_become_active_once_provisioned(money_customers, funding, advisory):
    """A business (never resolved at creation) is listed, then approved (suffix 004)."""
    business = money_customers.onboarding.business(
        "004", **money_customers.customer_fields(["USD"], terms=True)
    )
    early = funding.internal_accounts(business["id"])
    pending = [a["id"] for a in early if a.get("status") == "PENDING"]
    if not pending:
        advisory(
            f"{CLAUSE}: no PENDING account was listed for a new business "
            f"(listed: {[(a.get('id'), a.get('status')) for a in early]})"
        )
    status = money_customers.decide(business)
    check(
        status == "APPROVED",
        clauses.SANDBOX_BEHAVIOURS,
        "a business whose registration number does not end in 001, 002 or 003 is approved "
        "once its submission is complete",
        expected="APPROVED",
        observed=status,
    )
    funding.active_account(business["id"], "USD")  # fails if a PENDING one never activates
    later = {a["id"]: a.get("status") for a in funding.internal_accounts(business["id"])}
    still = {i: later.get(i) for i in pending if later.get(i) == "PENDING"}
    check(
        not still,
        CLAUSE,
        "a PENDING internal account becomes ACTIVE when provisioning completes",
        expected="ACTIVE",
        observed=still,
    )


@pytest.mark.requirement(
    "KYC-PENDING-BLOCKS-MONEY", "KYC-PENDING-ALLOWS-SETUP", "INTERNAL-ACCOUNT-INACTIVE-NO-MOVEMENT"
)
def test_a_pending_customer_may_set_up_accounts_but_moves_no_money(
    money_customers, external_accounts, funding, quotes, advisory
):
    customer = money_customers.pending_customer()
    response = external_accounts.create_external(customer["id"], "USD", "40012345000")
    check(
        response.status in (200, 201),
        VERIFICATION_CLAUSE,
        "while a customer is PENDING it may finish account setup: registering an external "
        "account is accepted",
        expected="200 or 201",
        observed=(response.status, response.content[:300]),
        exchange=response.exchange,
    )
    accounts = funding.internal_accounts(customer["id"])
    if not accounts:
        advisory(f"{VERIFICATION_CLAUSE}: the PENDING customer has no internal account to fund")
        return
    for account in accounts:
        before = funding.balances(account)
        funded = funding.fund(account["id"], 10_000)
        after = funding.account_balances(customer["id"], account["id"])
        inactive = account.get("status") in ("PENDING", "CLOSED", "FROZEN", "FAILED")
        check(
            after == before,
            CLAUSE if inactive else VERIFICATION_CLAUSE,
            f"a {account.get('status')} account of a PENDING customer receives nothing: funding "
            "is blocked",
            expected=before,
            observed={"funding answered": funded.status, "balances after": after},
            exchange=funded.exchange,
        )
        if 200 <= funded.status < 300:
            advisory(
                f"{VERIFICATION_CLAUSE}: funding a PENDING customer's account answered "
                f"{funded.status} (balances unchanged)"
            )
        destination = response.json.get("id")
        quoted = quotes.create_quote(quote_body(account["id"], destination, amount=1_000))
        executed = quotes.execute(quoted.json["id"]) if quoted.status in (200, 201) else None
        check(
            executed is None or not 200 <= executed.status < 300,
            VERIFICATION_CLAUSE,
            f"no transfer is executed for a PENDING customer ({status_field(customer)} "
            f"{customer.get(status_field(customer))}): the quote or its execution is refused",
            expected="POST /quotes or its execute refused",
            observed=(quoted.status, executed.status if executed else None),
            exchange=(executed or quoted).exchange,
        )
