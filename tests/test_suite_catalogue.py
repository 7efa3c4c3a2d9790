"""The catalogue keeps the suite honest: named ids exist, and implemented areas are covered."""

from __future__ import annotations

import importlib
import inspect
import pkgutil

import pytest

import conformance.suites
from conformance.requirements import PARTS, default_catalogue

# Areas whose every testable or needs-adapter requirement must have a test by now.
COMPLETE_AREAS = frozenset(
    {
        "config",
        "auth-basic",
        "versioning",
        "errors-core",
        "customers",
        "agreements",
        "contact-verification",
        "kyc-link",
        "beneficial-owners",
        "documents",
        "verification",
        "sandbox",
        "internal-accounts",
        "external-accounts",
        "quotes",
        "fees",
        "transactions",
        "refunds",
        "funding",
    }
)
# Requirements of started areas that later slices make reachable, and the areas those
# slices start (SCA, rule-based accounts, UMA, limits), listed so the gap stays visible.
_JIT = "just-in-time funding (REALTIME_FUNDING sources, POST /sandbox/send) comes later"
_UMA = "UMA addresses and payments come later"
_RULE_BASED = "rule-based accounts (POST /internal-accounts) come later"
_SCA = "strong customer authentication (quote authorization, SCA sessions) comes later"
_OWNERSHIP = "external-account ownership verification (challenge/verify) comes later"
_NO_HOOK = "needs an adapter hook no slice defines yet"
LATER = {
    # the deprecated transfer endpoints
    "VERSION-DEPRECATED-TRANSFER-ENDPOINTS": "transfer-in/transfer-out come later",
    # just-in-time funding
    "FUNDING-JIT-PAYMENT-INSTRUCTIONS": _JIT,
    "FUNDING-JIT-AUTO-EXECUTE": _JIT,
    "FUNDING-JIT-REFERENCE": _JIT,
    "SANDBOX-SEND": _JIT,
    "SANDBOX-SEND-CURRENCY-MATCH": _JIT,
    "SANDBOX-SEND-AMOUNT-DEFAULT": _JIT,
    # UMA, and transfers whose account types are not shown (wallets, crypto)
    "QUOTE-ALL-TRANSFER-KINDS": "UMA, fiat-to-crypto and crypto-to-fiat transfers come later",
    "SANDBOX-SCENARIO-DOMAIN-IDENTIFIER": "identifiers with a domain part are UMA addresses; "
    + _UMA,
    "TRANSACTION-ON-CHAIN-TRANSACTION": "on-chain transfers (wallet destinations) come later",
    "VERSION-DEPRECATED-RECONCILIATION-HASH": "wallet transfers come later",
    "UMA-RECONCILIATION-SETTLEMENT-HASH": _UMA,
    "UMA-INCOMING-PAYMENT": _UMA,
    "LIMIT-UMA-MIN-MAX": _UMA,
    # internal accounts: only rule-based ones are created through the interface
    "INTERNAL-ACCOUNT-CURRENCY-ISO4217": "the currency is given on create, and only " + _RULE_BASED,
    "INTERNAL-ACCOUNT-PENDING-TO-FAILED": _NO_HOOK + " (a provisioning failure)",
    "INTERNAL-ACCOUNT-ACTIVE-TO-CLOSED": _NO_HOOK + " (a customer closing an account)",
    "INTERNAL-ACCOUNT-ACTIVE-TO-FROZEN": _NO_HOOK + " (a compliance or fraud signal)",
    # external-account ownership verification
    "EXTERNAL-ACCOUNT-PENDING-USABLE": _OWNERSHIP,
    "EXTERNAL-ACCOUNT-VERIFIED-ACTIVE": _OWNERSHIP,
    "EXTERNAL-ACCOUNT-FAILED-UNVERIFIED": _OWNERSHIP,
    "EXTERNAL-ACCOUNT-VERIFY-SYNCHRONOUS": _OWNERSHIP,
    # triggers the interface hides and no adapter hook offers yet
    "TRANSACTION-PENDING-REASON": _NO_HOOK + " (a compliance hold)",
    "QUOTE-RATE-UNAVAILABLE-NOTHING-EXCHANGED": _NO_HOOK + " (a rate refused at execution)",
    "QUOTE-RATE-UNAVAILABLE-ERROR": _NO_HOOK + " (a rate refused at execution)",
    "REFUND-INCOMING-EVENTS": _NO_HOOK + " (an incoming deposit that is returned)",
    # limits whose values are not published
    "LIMIT-TRANSACTION-SIZE-400": "transaction size and daily volume limits come later",
    "LIMIT-DAILY-VOLUME-429": "transaction size and daily volume limits come later",
    # rule-based accounts
    **{
        rid: _RULE_BASED
        for rid in (
            "RULE-BASED-OWN-ROUTABLE-NUMBER",
            "RULE-BASED-SAME-CURRENCY-HOLDER",
            "RULE-BASED-CREATE-201",
            "RULE-BASED-TYPE-REQUIRED",
            "RULE-BASED-CUSTOMER-REQUIRED",
            "RULE-BASED-SWEEP-RULE-REQUIRED",
            "RULE-BASED-IDEMPOTENT-REPLAY",
            "RULE-BASED-IDEMPOTENCY-CONFLICT-409",
            "RULE-BASED-NO-KEY-NEW-NUMBER",
            "RULE-BASED-FEATURE-ENABLED",
            "RULE-BASED-FUND-TRIGGERS-SWEEP",
            "LIMIT-IDEMPOTENCY-KEY-255",
            "LIMIT-ACCOUNT-LABEL-255",
            "LIMIT-RULE-BASED-USD-ONLY",
            "LIMIT-RULE-BASED-INDIVIDUALS-ONLY",
        )
    },
    # strong customer authentication
    **{
        rid: _SCA
        for rid in (
            "SCA-PAYMENT-INSTRUCTIONS-WITHHELD",
            "SCA-CHALLENGE-SHAPE",
            "TRANSACTION-SCA-NOT-COMPLETED",
            "QUOTE-EXECUTE-SCA-CHALLENGE",
            "QUOTE-EXECUTE-SCA-409",
            "QUOTE-AUTHORIZE-RECHECK",
            "QUOTE-AUTHORIZE-RETURNS-QUOTE",
            "SCA-SESSION-REQUIRED-409",
            "SCA-ACCOUNT-LOCKED-423",
            "SCA-LOGIN-COMPLETE",
            "SCA-NON-SCA-NO-CHALLENGE",
            "SCA-ENDPOINTS-NON-SCA-409",
            "LIMIT-SCA-SESSION-180-DAYS",
        )
    },
}


def suite_tests():
    """(part, module name, test name, requirement ids) for every test function of the suites."""
    found = []
    for info in pkgutil.walk_packages(conformance.suites.__path__, "conformance.suites."):
        if not info.name.rsplit(".", 1)[-1].startswith("test_"):
            continue
        module = importlib.import_module(info.name)
        part = info.name.split(".")[2]
        module_marks = getattr(module, "pytestmark", [])
        module_marks = module_marks if isinstance(module_marks, list) else [module_marks]
        for name, function in inspect.getmembers(module, inspect.isfunction):
            if not name.startswith("test_") or function.__module__ != module.__name__:
                continue
            marks = [*module_marks, *getattr(function, "pytestmark", [])]
            ids = [arg for mark in marks if mark.name == "requirement" for arg in mark.args]
            found.append((part, info.name, name, ids))
    return found


def test_every_suite_test_names_known_requirements_of_its_part():
    catalogue = default_catalogue()
    for part, module, name, ids in suite_tests():
        assert part in PARTS, module
        assert ids, f"{module}::{name} declares no requirement"
        for rid in ids:
            assert rid in catalogue, f"{module}::{name} names unknown requirement {rid}"


def test_complete_areas_have_a_test_for_every_testable_requirement():
    tested = {rid for *_, ids in suite_tests() for rid in ids}
    started_areas = {default_catalogue().get(rid).area for rid in tested}
    missing = [
        r.id
        for r in default_catalogue()
        if r.testability in ("testable", "needs-adapter")
        and (r.area in COMPLETE_AREAS or r.area in started_areas)
        and r.id not in tested
        and r.id not in LATER
    ]
    assert not missing, f"requirements without a test: {missing}"


@pytest.mark.parametrize("rid", sorted(LATER))
def test_later_requirements_are_still_open(rid):
    """Once a later slice tests one of these, drop it from LATER."""
    tested = {rid for *_, ids in suite_tests() for rid in ids}
    assert rid not in tested
    assert rid in default_catalogue()
