"""How the suite creates rule-based accounts (§2 InternalAccount ``RULE_BASED``, §4 Accounts
``POST /internal-accounts``, §8 Limits) and reads their account numbers.

The ``sweepRule``'s inner structure is not shown: it comes from the adapter hook
``pytest_conformance_sweep_rule``. The label's field name is not shown either: it comes
from the profile's ``[field_names] internal_account_label``. Holders are individuals (§8:
individual customers only) that already hold an ``ACTIVE`` USD account (§2: an additional
account number for an existing holder of an account in the same currency).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import pytest

from conformance.contract import clauses
from conformance.customers.money_customers import MoneyCustomers
from conformance.exchange.assertions import required_json
from conformance.exchange.client import ApiResponse, TargetClient
from conformance.ground import hookspecs
from conformance.payments.external_accounts import ExternalAccounts
from conformance.payments.funding import Funding

__all__ = ["PATH", "SWEEP_RULE_HOOK", "Holder", "RuleBasedAccounts", "account_numbers"]

PATH = "/internal-accounts"
SWEEP_RULE_HOOK = hookspecs.pytest_conformance_sweep_rule
FEATURE = "rule-based-accounts"
CLAUSE = clauses.ACCOUNTS_ENDPOINTS
CURRENCY = "USD"
IDEMPOTENCY_HEADER = "Idempotency-Key"
# accountOrWalletInfo fields that carry an account's routable number or address (§2)
NUMBER_FIELDS = ("accountNumber", "iban", "clabe", "address")

Holder = tuple[dict[str, Any], dict[str, Any]]  # (customer, its ACTIVE USD account)


def account_numbers(account: Mapping[str, Any]) -> set[str]:
    """The routable numbers in an account's ``fundingPaymentInstructions``."""
    found: set[str] = set()
    for entry in account.get("fundingPaymentInstructions") or []:
        info = entry.get("accountOrWalletInfo") if isinstance(entry, Mapping) else None
        if isinstance(info, Mapping):
            found.update(str(info[k]) for k in NUMBER_FIELDS if info.get(k))
    return found


class RuleBasedAccounts:
    """Creates rule-based accounts for one test session."""

    def __init__(
        self,
        customers: MoneyCustomers,
        funding: Funding,
        sweep_rule: Callable[[str, str], dict[str, Any]],
    ) -> None:
        """``sweep_rule(customer_id, destination_id)`` is the adapter's rule."""
        self.customers = customers
        self.funding = funding
        self._sweep_rule = sweep_rule

    @property
    def client(self) -> TargetClient:
        """The client of the platform the accounts are created on."""
        return self.funding.client

    def acting_as(self, client: TargetClient) -> RuleBasedAccounts:
        """The same, for another platform's client (e.g. ``second_client``)."""
        profile = self.funding.profile
        customers = MoneyCustomers(client, profile)
        funding = Funding(client, profile, customers, ExternalAccounts(client, profile))
        return RuleBasedAccounts(customers, funding, self._sweep_rule)

    def holder(self, kind: str = "INDIVIDUAL") -> Holder:
        """A new APPROVED customer (an individual unless ``kind`` is ``BUSINESS``) and its
        ACTIVE USD internal account."""
        __tracebackhide__ = True
        customers = self.customers
        fields = customers.customer_fields([CURRENCY], terms=True)
        if kind == "BUSINESS":
            customer = customers.onboarding.business("004", **fields)
            status = customers.decide(customer, "004")
        else:
            customer = customers.onboarding.individual("", **fields)
            status = customers.decide(customer, "")
        if status != "APPROVED":
            pytest.skip(
                f"the target did not approve a {kind.lower()} without a scenario suffix "
                f"({status}); rule-based accounts need an approved holder of a USD account"
            )
        return customer, self.funding.active_account(customer["id"], CURRENCY)

    def body(
        self, customer_id: str, destination_id: str, *, label: str | None = None, **extra: Any
    ) -> dict[str, Any]:
        """A valid creation body sweeping to ``destination_id``."""
        body: dict[str, Any] = {
            "type": "RULE_BASED",
            "currency": CURRENCY,
            "customerId": customer_id,
            "sweepRule": self._sweep_rule(customer_id, destination_id),
        }
        if label is not None:
            body[self.funding.profile.field_name("internal_account_label")] = label
        body.update(extra)
        return body

    def create(
        self,
        body: Mapping[str, Any],
        key: str | None = None,
        *,
        client: TargetClient | None = None,
    ) -> ApiResponse:
        """POST /internal-accounts, with an ``Idempotency-Key`` when ``key`` is given."""
        headers = {IDEMPOTENCY_HEADER: key} if key is not None else None
        return (client or self.client).post(PATH, json=dict(body), headers=headers)

    def created(self, response: ApiResponse, statement: str) -> dict[str, Any]:
        """The account of a ``201`` answer; fails with §4 Accounts otherwise."""
        __tracebackhide__ = True
        account: dict[str, Any] = required_json(response, CLAUSE, statement, status=201)
        return account

    def new_account(self, holder: Holder, **extra: Any) -> dict[str, Any]:
        """A rule-based account of the holder sweeping to its USD account."""
        __tracebackhide__ = True
        customer, usd = holder
        return self.created(
            self.create(self.body(customer["id"], usd["id"], **extra)),
            "POST /internal-accounts with type RULE_BASED, currency USD, a customerId and a "
            "sweepRule answers 201 with the new InternalAccount",
        )
