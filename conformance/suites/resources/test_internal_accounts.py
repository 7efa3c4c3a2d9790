"""§2 Resources and their fields — InternalAccount, as GET /customers/internal-accounts lists
an approved customer's accounts.

The client checks every listed account against the InternalAccount schema (types, statuses,
label length, ``sweepRule`` null off ``RULE_BASED``); these tests check what a schema cannot.
The balance and label field names come from the profile (the interface names the values,
not the fields).
"""

from __future__ import annotations

import re

import pytest

from conformance.contract import clauses
from conformance.contract.failures import check

pytestmark = [pytest.mark.resource("InternalAccount"), pytest.mark.writes]

CLAUSE = clauses.INTERNAL_ACCOUNT
UUID = r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}"
TYPES = {"INTERNAL_FIAT", "INTERNAL_CRYPTO", "EMBEDDED_WALLET", "RULE_BASED"}
STATUSES = {"PENDING", "ACTIVE", "CLOSED", "FROZEN", "FAILED"}


@pytest.fixture(scope="module")
def accounts(money_customers, funding):
    """An approved customer and its listed internal accounts (one ACTIVE in USD at least)."""
    customer = money_customers.approved_customer(money_customers.currencies())
    funding.active_account(customer["id"], "USD")
    return customer, funding.internal_accounts(customer["id"])


@pytest.mark.requirement(
    "INTERNAL-ACCOUNT-FIELDS",
    "INTERNAL-ACCOUNT-TYPE-VALUES",
    "INTERNAL-ACCOUNT-STATUS-VALUES",
    "INTERNAL-ACCOUNT-CUSTOMER-ID",
    "COMMON-ID-FORMAT",
)
def test_internal_accounts_carry_their_identity_type_status_and_owner(accounts):
    customer, listed = accounts
    for account in listed:
        check(
            re.fullmatch(rf"InternalAccount:{UUID}", str(account.get("id"))),
            clauses.CONVENTIONS,
            "record identifiers have the form InternalAccount:<uuid>",
            observed=account.get("id"),
            requirement="COMMON-ID-FORMAT",
        )
        check(
            account.get("createdAt") and account.get("updatedAt"),
            CLAUSE,
            "an internal account carries createdAt and updatedAt timestamps",
            observed={k: account.get(k) for k in ("id", "createdAt", "updatedAt")},
            requirement="INTERNAL-ACCOUNT-FIELDS",
        )
        check(
            account.get("type") in TYPES and account.get("status") in STATUSES,
            CLAUSE,
            "type is one of INTERNAL_FIAT, INTERNAL_CRYPTO, EMBEDDED_WALLET, RULE_BASED and "
            "status one of PENDING, ACTIVE, CLOSED, FROZEN, FAILED",
            observed={k: account.get(k) for k in ("id", "type", "status")},
            requirement="INTERNAL-ACCOUNT-TYPE-VALUES"
            if account.get("type") not in TYPES
            else "INTERNAL-ACCOUNT-STATUS-VALUES",
        )
        check(
            account.get("customerId") == customer["id"],
            CLAUSE,
            "customerId names the customer that owns the account",
            expected=customer["id"],
            observed=account.get("customerId"),
            requirement="INTERNAL-ACCOUNT-CUSTOMER-ID",
        )


@pytest.mark.requirement("INTERNAL-ACCOUNT-SWEEP-RULE-NULL")
def test_accounts_other_than_rule_based_have_no_sweep_rule(accounts):
    _, listed = accounts
    for account in listed:
        if account.get("type") == "RULE_BASED":
            continue
        check(
            account.get("sweepRule") is None,
            CLAUSE,
            "sweepRule is null for every type other than RULE_BASED",
            observed={k: account.get(k) for k in ("id", "type", "sweepRule")},
        )


@pytest.mark.requirement("INTERNAL-ACCOUNT-BALANCES", "COMMON-MONEY-INTEGER")
def test_the_available_balance_never_exceeds_the_total(funding, accounts):
    _, listed = accounts
    for account in listed:
        balances = funding.balances(account)
        check(
            balances.available <= balances.total,
            CLAUSE,
            "the available balance excludes pending and held funds and the total includes "
            "them, so the available balance never exceeds the total",
            observed={"id": account.get("id"), "balances": balances},
            requirement="INTERNAL-ACCOUNT-BALANCES",
        )


@pytest.mark.requirement("INTERNAL-ACCOUNT-LABEL")
def test_an_account_given_no_label_has_a_null_label(profile, accounts, advisory):
    _, listed = accounts
    name = profile.field_name("internal_account_label")
    for account in listed:
        if name not in account:
            advisory(
                f"{CLAUSE}: account {account.get('id')} has no {name!r} field; the label is "
                "null if none (set [field_names] internal_account_label if it is named otherwise)"
            )
            continue
        check(
            account[name] is None,
            CLAUSE,
            f"the label ({name!r}, name from the profile) is null when the platform supplied none",
            observed={"id": account.get("id"), name: account[name]},
        )


@pytest.mark.requirement("INTERNAL-ACCOUNT-FUNDING-INSTRUCTIONS", "FUNDING-INSTRUCTION-ENTRY-SHAPE")
def test_active_accounts_carry_payment_instructions_for_funding(accounts, schema_registry):
    _, listed = accounts
    for account in [a for a in listed if a.get("status") == "ACTIVE"]:
        instructions = account.get("fundingPaymentInstructions")
        check(
            isinstance(instructions, list) and instructions,
            CLAUSE,
            "an internal account carries fundingPaymentInstructions, payment instructions for "
            "funding it",
            observed={"id": account.get("id"), "fundingPaymentInstructions": instructions},
        )
        for entry in instructions:
            problems = schema_registry.violations("common#/$defs/PaymentInstruction", entry)
            check(
                not problems,
                clauses.QUOTE + " (payment instruction entry)",
                "a payment instruction has an optional instructionsNotes and "
                "accountOrWalletInfo with accountType plus type-specific fields",
                observed=[f"{p.path}: {p.message}" for p in problems],
                hint=f"account {account.get('id')}",
            )
