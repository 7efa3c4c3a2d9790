"""How the suite reads and funds internal accounts (§2 InternalAccount, §3 Internal account,
§4 Accounts, §4 sandbox fund), and builds a customer ready to pay: approved, funded, with an
external account to pay to.

Tests say what they check; this module does the calls. A step that is only set-up fails
with the clause that makes it valid (an approved customer can be funded), so a broken
set-up reads as the violation it is. The two balance fields are named by the profile's
``[field_names]``; how a customer's internal accounts come to exist is not shown, so a test
that needs one the target does not list skips and says so.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import pytest

from conformance.contract import clauses
from conformance.contract.failures import ConformanceFailure, check
from conformance.customers.money_customers import MoneyCustomers
from conformance.exchange.assertions import required_json
from conformance.exchange.client import ApiResponse, TargetClient
from conformance.exchange.list_pages import Listing, Pagination, read_list, skip_unlisted
from conformance.ground.profile import TargetProfile
from conformance.payments.external_accounts import ACCOUNTS_CLAUSE, ExternalAccounts
from conformance.payments.quote_bodies import Corridor
from conformance.payments.transaction_history import amount_of

__all__ = ["SANDBOX_CLAUSE", "Balances", "Funding", "Wallet"]

SANDBOX_CLAUSE = clauses.CARDS_AGENTS_SANDBOX_ENDPOINTS
ACCOUNT_CLAUSE = clauses.INTERNAL_ACCOUNT
INTERNAL_ACCOUNT_STATES_CLAUSE = clauses.INTERNAL_ACCOUNT_STATES
# §3 Internal account: a PENDING account becomes ACTIVE when provisioning completes
PROVISIONING_REQUIREMENT = "INTERNAL-ACCOUNT-PENDING-TO-ACTIVE"


@dataclass(frozen=True, slots=True)
class Wallet:
    """An approved customer with a funded internal account and an ordinary external
    account per currency."""

    customer: dict[str, Any]
    sources: dict[str, dict[str, Any]]
    destinations: dict[str, dict[str, Any]]

    @property
    def customer_id(self) -> str:
        """The customer's id."""
        return str(self.customer["id"])

    def corridor(self, source: str = "USD", destination: str = "USD") -> Corridor:
        """From the internal account in ``source`` to the external account in
        ``destination``."""
        return Corridor(
            self.sources[source]["id"], source, self.destinations[destination]["id"], destination
        )

    def corridors(self) -> list[Corridor]:
        """Every pair of a source and a destination currency."""
        return [self.corridor(s, d) for s in self.sources for d in self.destinations]


@dataclass(frozen=True, slots=True)
class Balances:
    """An internal account's available and total balance, in the smallest unit."""

    available: int
    total: int


class Funding:
    """Reads and funds internal accounts for one test session; builds wallets from the
    customers and external accounts it is given."""

    def __init__(
        self,
        client: TargetClient,
        profile: TargetProfile,
        customers: MoneyCustomers,
        external_accounts: ExternalAccounts,
    ) -> None:
        self.client = client
        self.profile = profile
        self.customers = customers
        self.external_accounts = external_accounts

    def wallet(self, currencies: Sequence[str] = ("USD",), *, funds: int = 100_000_000) -> Wallet:
        """An approved customer in ``currencies`` with each source funded by ``funds``."""
        customer = self.customers.approved_customer(currencies)
        sources = {c: self.funded_account(customer, c, funds) for c in currencies}
        destinations = {
            c: self.external_accounts.external_account(customer["id"], c) for c in currencies
        }
        return Wallet(customer, sources, destinations)

    def balances(self, account: Mapping[str, Any]) -> Balances:
        """The two balances of an internal account, under the profile's field names."""
        __tracebackhide__ = True
        names = (
            self.profile.field_name("internal_account_available_balance"),
            self.profile.field_name("internal_account_total_balance"),
        )
        values = [amount_of(account.get(n)) for n in names]
        check(
            all(v is not None for v in values),
            ACCOUNT_CLAUSE,
            "an internal account reports an available balance and a total balance, each an "
            f"integer amount (or {{amount, currency}}); field names from the profile: {names}",
            observed={n: account.get(n) for n in names},
            hint="set [field_names] internal_account_available_balance / "
            "internal_account_total_balance in the profile if the target names them otherwise",
            # one not reported breaks the two balances' rule; one not an integer, the money rule
            requirement="INTERNAL-ACCOUNT-BALANCES"
            if any(account.get(n) is None for n in names)
            else "COMMON-MONEY-INTEGER",
        )
        available, total = values
        assert available is not None and total is not None
        return Balances(available, total)

    def internal_accounts(self, customer_id: str) -> list[dict[str, Any]]:
        """GET /customers/internal-accounts?customerId=<id>: the customer's accounts."""
        __tracebackhide__ = True
        return self.listing(customer_id).items

    def listing(self, customer_id: str) -> Listing:
        """The customer's internal accounts, every page when the profile says how."""
        __tracebackhide__ = True
        return read_list(
            self.client,
            "/customers/internal-accounts",
            {"customerId": customer_id},
            Pagination.of(self.profile.pagination),
            clause=ACCOUNTS_CLAUSE,
            statement="GET /customers/internal-accounts?customerId=<id> lists the customer's "
            "internal accounts",
        )

    def account(self, customer_id: str, account_id: str) -> dict[str, Any]:
        """The customer's internal account with this id, as listed now."""
        __tracebackhide__ = True
        listing = self.listing(customer_id)
        found = [a for a in listing.items if a.get("id") == account_id]
        if not found and not listing.complete:
            skip_unlisted(listing, f"internal account {account_id}")
        check(
            bool(found),
            ACCOUNTS_CLAUSE,
            "GET /customers/internal-accounts?customerId=<id> lists every account of the customer",
            expected=account_id,
            observed="not listed",
        )
        return found[0]

    def account_balances(self, customer_id: str, account_id: str) -> Balances:
        """The balances of the customer's internal account with this id, as listed now."""
        return self.balances(self.account(customer_id, account_id))

    def active_account(
        self, customer_id: str, currency: str, account_type: str = "INTERNAL_FIAT"
    ) -> dict[str, Any]:
        """The customer's ACTIVE internal account in ``currency``, waiting for provisioning.

        How a customer's internal accounts come to exist is not shown (§2 InternalAccount);
        a target that lists none in the currency makes the test skip. One that stays
        PENDING past the profile's ``webhook_timeout`` fails §3 Internal account.
        """
        __tracebackhide__ = True
        waited_for = f"an ACTIVE {account_type} account in {currency}"
        known = self.client.state.ran_out.known(waited_for)
        if known is not None:  # an earlier test waited it out: this one ends at once
            raise known
        deadline = time.monotonic() + self.profile.webhook_timeout
        pause = 0.05
        while True:
            accounts = [
                a
                for a in self.internal_accounts(customer_id)
                if a.get("currency") == currency and a.get("type") == account_type
            ]
            active = [a for a in accounts if a.get("status") == "ACTIVE"]
            if active:
                return active[0]
            if time.monotonic() >= deadline:
                break
            time.sleep(min(pause, max(deadline - time.monotonic(), 0)))
            pause = min(pause * 2, 1.0)
        if not accounts:
            pytest.skip(
                f"the target lists no {account_type} account in {currency} for an approved "
                f"customer created with currencies including {currency}; how a customer's "
                "internal accounts come to exist is not shown (§2 InternalAccount)"
            )
        failure = ConformanceFailure(
            INTERNAL_ACCOUNT_STATES_CLAUSE,
            "a PENDING internal account becomes ACTIVE when provisioning completes",
            expected="ACTIVE",
            observed=[a.get("status") for a in accounts],
            hint=f"still not ACTIVE {self.profile.webhook_timeout:g} s after the customer "
            "was approved",
        )
        failure.charged_to = PROVISIONING_REQUIREMENT
        failure.cause = f"{waited_for} never became ACTIVE after its customer was approved"
        self.client.state.ran_out.record(waited_for, failure)
        raise failure

    def fund(self, account_id: str, amount: int) -> ApiResponse:
        """POST /sandbox/internal-accounts/{id}/fund {amount}."""
        return self.client.post(
            f"/sandbox/internal-accounts/{account_id}/fund", json={"amount": amount}
        )

    def fund_ok(self, account_id: str, amount: int) -> dict[str, Any]:
        """Fund an ACTIVE account of an approved customer; the updated InternalAccount."""
        __tracebackhide__ = True
        account: dict[str, Any] = required_json(
            self.fund(account_id, amount),
            SANDBOX_CLAUSE,
            "POST /sandbox/internal-accounts/{accountId}/fund with an amount credits an "
            "ACTIVE account of an approved customer and returns the updated InternalAccount",
        )
        return account

    def funded_account(
        self, customer: Mapping[str, Any], currency: str = "USD", amount: int = 10_000_000
    ) -> dict[str, Any]:
        """The customer's ACTIVE account in ``currency``, funded with ``amount``."""
        account = self.active_account(customer["id"], currency)
        self.fund_ok(account["id"], amount)
        return self.account(customer["id"], account["id"])
