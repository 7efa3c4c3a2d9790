"""The catalogue keeps the suite honest: named ids exist, implemented areas are covered, and
each test sits in the folder of the part its requirements name."""

from __future__ import annotations

import importlib
import inspect
import pkgutil

import pytest

import conformance.suites
from conformance.contract.requirements import PARTS, default_catalogue

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
        "limits",
        "sca",
        "uma",
        "wallet-auth",
    }
)

# Tags a test keeps for a clause of another part than its folder's: the test checks that
# clause too, as a step of its own scenario. Each id's own part has a test of its own, so a
# run of that part alone still decides it. "part/test_module.py::test_name" -> ids.
ACROSS_PARTS: dict[str, frozenset[str]] = {
    # endpoints: the record an operation answers is read for a rule of its shape
    "endpoints/test_beneficial_owners.py::test_an_owner_of_a_business_is_created":
        frozenset({"COMMON-ID-FORMAT"}),  # the owner's id is checked for <Type>:<uuid>
    "endpoints/test_customers.py::test_generated_valid_customers_are_created_and_read_back_unchanged":
        frozenset({"CUSTOMER-TYPE-VALUES"}),  # each reads back with the type it was sent with
    "endpoints/test_internal_accounts.py::test_funding_credits_the_account_and_returns_it":
        frozenset({"INTERNAL-ACCOUNT-BALANCES"}),  # the funded available stays within the total
    "endpoints/test_kyc_link.py::test_a_link_comes_with_its_url_expiry_and_provider":
        frozenset({"CONTACT-VERIFICATION-ONLY-REQUIRED-CHANNELS"}),  # no list: a link at once
    "endpoints/test_quote_fees.py::test_generated_quotes_follow_the_fee_and_rate_arithmetic":
        frozenset({"QUOTE-FEE-FIELDS"}),  # every generated quote's fee fields are integers
    # endpoints: the operation's effect is a state change or needs the wallet's signature
    "endpoints/test_quote_fees.py::test_executing_a_quote_moves_the_amounts_it_stated":
        frozenset({"QUOTE-EXECUTE-DEBITS-SOURCE"}),  # the source drops by the stated total
    "endpoints/test_wallet_credentials.py::test_a_further_credential_is_registered_by_the_signed_retry":
        frozenset({"WALLET-SIGNATURE-REQUIRED"}),  # registered by the signed retry only
    # errors: the refusal is of a body that breaks a rule of the record or of the operation
    "errors/test_contact_verification_errors.py::test_a_channel_the_provider_does_not_require_answers_409":
        frozenset({"CONTACT-VERIFICATION-ONLY-REQUIRED-CHANNELS"}),  # a channel not listed
    "errors/test_customers_validation.py::test_an_invalid_patch_is_refused_naming_its_fields_and_changes_nothing":
        frozenset({"CUSTOMER-INDIVIDUAL-FIELDS"}),  # the birthDate and nationality formats
    "errors/test_customers_validation.py::test_generated_invalid_customers_are_refused_naming_every_invalid_field":
        frozenset(  # the generated bodies break these rules and the answer must name each
            {
                "CUSTOMER-CREATE-TYPE-REQUIRED",
                "CUSTOMER-CREATE-BUSINESS-INFO-REQUIRED",
                "CUSTOMER-BUSINESS-COUNTRY-ALPHA2",
                "CUSTOMER-BUSINESS-TAX-ID-VALIDATED",
            }
        ),
    # limits: the limit is read from the record's fields
    "limits/test_quotes_limits.py::test_a_quote_expires_within_15_minutes_of_its_creation":
        frozenset({"QUOTE-TIMESTAMPS"}),  # the lifetime is expiresAt after createdAt
    # transitions: the walk meets an error answer, a record's shape or an operation on the way
    "transitions/test_contact_verification.py::test_a_kyc_link_is_issued_once_every_present_channel_is_verified":
        frozenset({"KYC-LINK-CONTACT-UNVERIFIED-409"}),  # each step before the last answers 409
    "transitions/test_execute.py::test_a_failed_payout_fails_and_its_debit_is_refunded":
        frozenset({"TRANSACTION-FAILURE-REASON", "TRANSACTION-REFUND-OBJECT"}),  # the FAILED record
    "transitions/test_payout_scenarios.py::test_beneficiary_name_outcomes_end_in_a_stated_state":
        frozenset({"TRANSACTION-FAILURE-REASON"}),  # a FAILED outcome names its reason
    "transitions/test_pull_sources.py::test_a_pull_sources_suffix_selects_its_scenario":
        frozenset({"TRANSACTION-FAILURE-REASON"}),  # the failed pull names its reason
    "transitions/test_money_conservation.py::test_money_is_conserved_through_funding_payments_and_refunds":
        frozenset(  # its steps fund, execute and read balances, each checked as it goes
            {
                "INTERNAL-ACCOUNT-BALANCES",
                "SANDBOX-FUND-INTERNAL-ACCOUNT",
                "FEES-FIXED-FOR-QUOTE-LIFE",
            }
        ),
    "transitions/test_verification_businesses.py::test_a_complete_business_submission_is_decided_by_the_suffix":
        frozenset({"WEBHOOK-CUSTOMER-EVENT-FAMILY"}),  # the decision's events are KYB_*
    "transitions/test_verification_individuals.py::test_a_complete_submission_is_decided_by_the_suffix":
        frozenset({"WEBHOOK-CUSTOMER-EVENT-FAMILY"}),  # the decision's events are KYC_*
    # webhooks: the events read are those a state change emits
    "webhooks/test_external_account_events.py::test_ownership_events_are_signed_envelopes":
        frozenset({"EXTERNAL-ACCOUNT-VERIFIED-ACTIVE"}),  # STATUS_UPDATED on verification
    "webhooks/test_incoming_payment_events.py::test_incoming_refund_events_are_signed_transactions_in_order":
        frozenset({"REFUND-INCOMING-EVENTS"}),  # REFUND_PENDING, then the refund's end
    "webhooks/test_payment_events.py::test_payment_events_follow_the_state_machine":
        frozenset(  # the OUTGOING_PAYMENT.* events in the order the transitions emit them
            {
                "REFUND-OUTGOING-LIFECYCLE",
                "TRANSACTION-PROCESSING-TO-COMPLETED",
                "TRANSACTION-PROCESSING-TO-FAILED",
            }
        ),
    "webhooks/test_verification_events.py::test_status_changes_emit_events_of_the_customers_family":
        frozenset({"KYC-SUBMISSION-PENDING", "KYB-SUBMISSION-PENDING"}),  # _PENDING is read too
}  # fmt: skip

# Requirements of started areas that a later slice makes reachable, id -> why not yet,
# listed so the gap stays visible (empty once the money-movement slices landed).
LATER: dict[str, str] = {}


# pytest's type of a ``pytest.param`` case (its module is private)
PARAMETER_SET = type(pytest.param())


def _parameter_marks(marks):
    """The marks of ``pytest.param`` cases: a test over a table tags each case with its row's
    requirement (``endpoints/test_optional_fields.py``)."""
    return [
        mark
        for parametrize in marks
        if parametrize.name == "parametrize"
        for case in parametrize.args[1]
        if isinstance(case, PARAMETER_SET)
        for mark in case.marks
    ]


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
            marks += _parameter_marks(marks)
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


def _suite_key(module: str, name: str) -> str:
    """``part/test_module.py::test_name`` of a suite test, as ACROSS_PARTS keys it."""
    return f"{module.removeprefix('conformance.suites.').replace('.', '/')}.py::{name}"


def test_every_requirement_tag_is_of_the_part_of_its_tests_folder():
    """A part's folder holds the tests of that part's requirements: a run of the part decides
    them all, and the report files each failure under the part its requirement names."""
    catalogue = default_catalogue()
    elsewhere = [
        f"{_suite_key(module, name)} tags {rid} (part {catalogue.get(rid).part})"
        for part, module, name, ids in suite_tests()
        for rid in ids
        if catalogue.get(rid).part != part
        and rid not in ACROSS_PARTS.get(_suite_key(module, name), frozenset())
    ]
    assert not elsewhere, (
        "move the test to the folder of its requirements' part, or file the requirement "
        "under the part it is about (requirements.yaml):\n" + "\n".join(elsewhere)
    )


def test_tags_kept_across_parts_are_still_across_and_decided_in_their_own_part():
    catalogue = default_catalogue()
    tags = {_suite_key(module, name): (part, set(ids)) for part, module, name, ids in suite_tests()}
    stale = [
        f"{key}: {rid}"
        for key, ids in ACROSS_PARTS.items()
        for rid in sorted(ids)
        if key not in tags or rid not in tags[key][1] or catalogue.get(rid).part == tags[key][0]
    ]
    assert not stale, f"ACROSS_PARTS names tags that are not across parts (drop them): {stale}"
    at_home = {
        rid for part, _, _, ids in suite_tests() for rid in ids if catalogue.get(rid).part == part
    }
    alone = sorted({rid for ids in ACROSS_PARTS.values() for rid in ids} - at_home)
    assert not alone, (
        f"no test in their own part's folder, so a run of that part leaves them untested: {alone}"
    )


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


def test_later_requirements_are_still_open():
    """Once a later slice tests one of these, drop it from LATER."""
    tested = {rid for *_, ids in suite_tests() for rid in ids}
    assert not sorted(set(LATER) & tested), "tested ids still listed in LATER"
    assert not sorted(set(LATER) - set(default_catalogue().ids())), "unknown ids in LATER"


def test_the_suite_index_is_every_test_the_modules_define():
    """Waivers are checked against ``suite_index`` (read without importing), whichever parts
    a run collects: it must find exactly what importing the modules finds."""
    from conformance.reporting.suite_index import names_a_suite_test, suite_test_ids

    imported = {
        f"{module.removeprefix('conformance.suites.').replace('.', '/')}.py::{name}"
        for _, module, name, _ in suite_tests()
    }
    assert suite_test_ids() == imported
    some = sorted(imported)[0]
    assert names_a_suite_test(some) and names_a_suite_test(f"conformance/suites/{some}[x-1]")
    assert names_a_suite_test(some.split("/", 1)[1])  # from the module's name on
    assert not names_a_suite_test(some + "_not") and not names_a_suite_test(some[1:])
