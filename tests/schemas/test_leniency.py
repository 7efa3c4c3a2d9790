"""Open where the interface is open (unknown properties, new enum values, fields it does not
show), closed where it states a rule."""

from __future__ import annotations

from typing import Any

import pytest

from conformance.contract.schemas import SchemaRegistry

from .invalid_examples import paths_and_keywords
from .samples import (
    CARD_TRANSACTION,
    ERROR_400,
    FAILED_TRANSACTION,
    INDIVIDUAL,
    INTERNAL_ACCOUNT,
    QUOTE,
    SCA_QUOTE,
    TRANSACTION,
    USD,
    VERIFICATION,
    rid,
)
from .valid_examples import VALID


def _with_extras(value: Any) -> Any:
    """Add an unknown property to every object of ``value``."""
    if isinstance(value, dict):
        return {**{k: _with_extras(v) for k, v in value.items()}, "vendorExtension": {"x": [1]}}
    if isinstance(value, list):
        return [_with_extras(item) for item in value]
    return value


@pytest.mark.parametrize(
    "name",
    # an extra array would be a second list; a form's extra part is one text field (the
    # reference's multipart form, served document only), a wallet SDK's extra value a string
    # (the reference's tokenize body, served document only)
    [
        n
        for n in VALID
        if n not in {"agreements", "requests/document-upload", "requests/card-tokenize"}
    ],
)
def test_unknown_extra_properties_are_allowed_everywhere(
    registry: SchemaRegistry, name: str
) -> None:
    for instance in VALID[name]:
        assert registry.violations(name, _with_extras(instance)) == []


@pytest.mark.parametrize(
    ("name", "instance"),
    [
        ("verification", {**VERIFICATION, "verificationStatus": "AWAITING_SOMETHING_NEW"}),
        (
            "verification",
            {
                **VERIFICATION,
                "errors": [{"resourceId": rid("Customer"), "type": "NEW_KIND", "reason": "r"}],
            },
        ),
        ("quote", {**QUOTE, "status": "AUTHORIZED"}),
        (
            "transaction",
            {
                **TRANSACTION,
                "status": "AWAITING_APPROVAL",
                "type": "INCOMING",
                "direction": "CREDIT",
            },
        ),
        ("transaction", {**FAILED_TRANSACTION, "failureReason": "SOME_NEW_REASON"}),
        (
            "transaction",
            {**TRANSACTION, "source": {"sourceType": "UMA_ADDRESS", "umaAddress": "$a@b.c"}},
        ),
        ("card-transaction", {**CARD_TRANSACTION, "status": "PARTIALLY_SETTLED"}),
        ("document", {"documentType": "UTILITY_BILL"}),
        (
            "quote",
            {
                **SCA_QUOTE,
                "scaChallenge": {
                    **SCA_QUOTE["scaChallenge"],
                    "factor": "EMAIL_OTP",
                    "purpose": "LOGIN",
                },
            },
        ),
        (
            "external-account",
            {
                "id": rid("ExternalAccount"),
                "status": "ACTIVE",
                "accountInfo": {"accountType": "IBAN"},
            },
        ),
        ("errors/error", {"status": 418, "code": "TEAPOT", "details": {"anything": True}}),
        (
            "errors/error-400",
            {**ERROR_400, "details": {"errors": [{"path": ["a", 0, "b"], "code": "X"}]}},
        ),
        ("customer", {**INDIVIDUAL, "someFutureField": [1, 2]}),
        ("internal-account", {**INTERNAL_ACCOUNT, "customerId": ""}),
    ],
)
def test_open_sets_and_unshown_fields_are_allowed(
    registry: SchemaRegistry, name: str, instance: Any
) -> None:
    assert registry.violations(name, instance) == []


# -- open where the interface is open, closed where it states a rule ----------------------


def test_an_error_constraint_may_be_an_object(registry: SchemaRegistry) -> None:
    """§7 says only "a machine-readable constraint": the published examples use objects."""
    entry = {"field": "remittanceInformation", "constraint": {"name": "maxLength", "value": 80}}
    body = {"status": 400, "code": "INVALID_INPUT", "message": "m", "details": {"errors": [entry]}}
    assert registry.violations("errors/error-400", body) == []


@pytest.mark.parametrize("fixed", [25, {"amount": 25, "currency": USD}])
def test_a_fee_config_fixed_amount_is_an_integer_or_a_money_object(
    registry: SchemaRegistry, fixed: Any
) -> None:
    config = {
        "id": rid("PlatformConfig"),
        "feeConfigs": [{"sourceCurrency": "USD", "fixedFee": fixed}],
    }
    assert registry.violations("platform-config", config) == []
    config["feeConfigs"][0]["fixedFee"] = -1
    assert paths_and_keywords(registry.violations("platform-config", config))


def test_a_completed_transaction_carries_no_failure_reason(registry: SchemaRegistry) -> None:
    done = {"id": rid("Transaction"), "status": "COMPLETED"}
    assert registry.violations("transaction", done) == []
    # none is absent: §2 names a string and allows no null
    assert paths_and_keywords(
        registry.violations("transaction", {**done, "failureReason": None})
    ) >= {("failureReason", "type")}
    stale = {**done, "failureReason": "PAYOUT_RETURNED"}
    [problem] = registry.violations("transaction-list-item", stale)
    assert problem.path == "failureReason"
    assert registry.clause("transaction-list-item") == "§2 Resources and their fields — Transaction"


@pytest.mark.parametrize("instructions", [[], "missing"])
def test_a_pending_just_in_time_quote_carries_instructions(
    registry: SchemaRegistry, instructions: Any
) -> None:
    source = {"sourceType": "REALTIME_FUNDING", "customerId": rid("Customer"), "currency": "EUR"}
    quote: dict[str, Any] = {"id": rid("Quote"), "status": "PENDING", "source": source}
    if instructions != "missing":
        quote["paymentInstructions"] = instructions
    [problem] = registry.violations("quote", quote)
    assert "paymentInstructions" in f"{problem.path} {problem.message}"
    challenged = {
        **quote,
        "status": "PENDING_AUTHORIZATION",
        "scaChallenge": {"id": rid("ScaChallenge")},
    }
    assert registry.violations("quote", challenged) == []  # withheld while challenged
