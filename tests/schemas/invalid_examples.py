"""Invalid examples, each with the place and the keyword it must fail at, and the helper that
reads those two from a list of violations."""

from __future__ import annotations

from typing import Any

from conformance.contract.schemas import SchemaViolation

from .samples import (
    BUSINESS,
    CARD_TRANSACTION,
    DECLINED_CARD_TRANSACTION,
    EUR,
    FAILED_TRANSACTION,
    INDIVIDUAL,
    INTERNAL_ACCOUNT,
    JIT_QUOTE,
    PLATFORM_CONFIG,
    QUOTE,
    SCA_QUOTE,
    TRANSACTION,
    TS,
    UUID,
    VERIFICATION,
    rid,
)
from .valid_examples import VALID

# (schema, instance, expected path, expected keyword)
INVALID: list[tuple[str, Any, str, str]] = [
    ("sca-session", {"customerId": "x"}, "$", "required"),
    ("sca-session", {"sessionExpiresAt": "2026-01-01"}, "sessionExpiresAt", "pattern"),
    ("wallet-credential", {"type": "EMAIL_OTP"}, "$", "required"),
    ("wallet-credential", {"id": "c", "type": "PASSWORD"}, "type", "enum"),
    ("wallet-challenge", {"challenge": "abc"}, "$", "anyOf"),
    ("wallet-signature-challenge", {"payloadToSign": "x"}, "$", "required"),
    ("wallet-signature-challenge", {"payloadToSign": 1, "requestId": "r"}, "payloadToSign", "type"),
    ("wallet-session", {"expiresAt": "tomorrow"}, "expiresAt", "pattern"),
    ("customer", {**INDIVIDUAL, "id": f"Client:{UUID}"}, "id", "pattern"),
    ("customer", {**INDIVIDUAL, "id": rid("Quote")}, "id", "pattern"),
    ("customer", {k: v for k, v in INDIVIDUAL.items() if k != "customerType"}, "$", "required"),
    ("customer", {**INDIVIDUAL, "customerType": "PERSON"}, "customerType", "enum"),
    ("customer", {**INDIVIDUAL, "birthDate": "1990-02-30"}, "birthDate", "format"),
    ("customer", {**INDIVIDUAL, "nationality": "gb"}, "nationality", "pattern"),
    ("customer", {**INDIVIDUAL, "kycStatus": "VERIFIED"}, "kycStatus", "enum"),
    (
        "customer",
        {**INDIVIDUAL, "contactVerification": {"email": "DONE"}},
        "contactVerification.email",
        "enum",
    ),
    ("customer", {**INDIVIDUAL, "businessInfo": BUSINESS["businessInfo"]}, "businessInfo", "not"),
    ("customer", {**BUSINESS, "businessInfo": None}, "businessInfo", "type"),
    # §2 names a type and allows no null: a field without a value is absent, never null
    ("customer", {**INDIVIDUAL, "fullName": None}, "fullName", "type"),
    ("customer", {**INDIVIDUAL, "email": None}, "email", "type"),
    ("quote", {**QUOTE, "description": None}, "description", "type"),
    ("quote", {**QUOTE, "transactionId": None}, "transactionId", "type"),
    ("transaction", {**TRANSACTION, "description": None}, "description", "type"),
    ("transaction", {**TRANSACTION, "settledAt": None}, "settledAt", "type"),
    ("transaction", {**TRANSACTION, "refund": None}, "refund", "type"),
    ("platform-config", {**PLATFORM_CONFIG, "webhookEndpoint": None}, "webhookEndpoint", "type"),
    ("card-transaction", {**CARD_TRANSACTION, "merchant": None}, "merchant", "type"),
    (
        "customer",
        {
            **BUSINESS,
            "businessInfo": {"legalName": "X", "country": "US", "incorporatedOn": "2015-06-01"},
        },
        "businessInfo",
        "required",
    ),
    (
        "customer",
        {**INDIVIDUAL, "agreementConsents": [{"acceptedAt": TS}]},
        "agreementConsents[0]",
        "required",
    ),
    ("quote", {**QUOTE, "totalSendingAmount": 1050.5}, "totalSendingAmount", "type"),
    ("quote", {**QUOTE, "createdAt": "2025-10-13T12:00:00+02:00"}, "createdAt", "pattern"),
    ("quote", {**QUOTE, "expiresAt": "2025-10-13T12:00:00"}, "expiresAt", "pattern"),
    (
        "quote",
        {**QUOTE, "sendingCurrency": {"code": "USD", "name": "US Dollar", "symbol": "$"}},
        "sendingCurrency",
        "required",
    ),
    (
        "quote",
        {**QUOTE, "receivingCurrency": {"code": "EUR", "decimals": 2}},
        "receivingCurrency",
        "required",
    ),
    ("quote", {**QUOTE, "source": {"sourceType": "BANK"}}, "source.sourceType", "enum"),
    ("quote", {**QUOTE, "source": {"sourceType": "ACCOUNT"}}, "source", "required"),
    (
        "quote",
        {**QUOTE, "destination": {"destinationType": "ACCOUNT", "accountId": rid("Quote")}},
        "destination.accountId",
        "pattern",
    ),
    ("quote", {**SCA_QUOTE, "scaChallenge": None}, "scaChallenge", "type"),
    ("quote", {k: v for k, v in SCA_QUOTE.items() if k != "scaChallenge"}, "$", "required"),
    (
        "quote",
        {**QUOTE, "rateDetails": {"serviceApiVariableFeeRate": 3}},
        "rateDetails.serviceApiVariableFeeRate",
        "maximum",
    ),
    (
        "quote",
        {**JIT_QUOTE, "paymentInstructions": [{"instructionsNotes": "x"}]},
        "paymentInstructions[0]",
        "required",
    ),
    (
        "transaction",
        {**TRANSACTION, "createdAt": "2025-10-13T14:00:00+02:00"},
        "createdAt",
        "pattern",
    ),
    (
        "transaction",
        {**TRANSACTION, "sentAmount": {"amount": 1, "currency": {"code": "USD"}}},
        "sentAmount.currency",
        "required",
    ),
    (
        "transaction",
        {**TRANSACTION, "receivedAmount": {"amount": 9.5, "currency": EUR}},
        "receivedAmount.amount",
        "type",
    ),
    ("transaction", {**FAILED_TRANSACTION, "failureReason": None}, "failureReason", "type"),
    (
        "transaction",
        {k: v for k, v in FAILED_TRANSACTION.items() if k != "failureReason"},
        "$",
        "required",
    ),
    (
        "transaction",
        {**FAILED_TRANSACTION, "failureReason": "SETTLEMENT_FAILED"},
        "failureReason",
        "not",
    ),
    ("transaction", {**TRANSACTION, "id": rid("Quote")}, "id", "pattern"),
    ("card-transaction", {**CARD_TRANSACTION, "status": "REFUNDED"}, "status", "not"),
    ("card-transaction", {**CARD_TRANSACTION, "direction": "INBOUND"}, "direction", "enum"),
    (
        "card-transaction",
        {**DECLINED_CARD_TRANSACTION, "cardDeclinedReason": "FRAUD"},
        "cardDeclinedReason",
        "enum",
    ),
    ("card-transaction", {"status": "DECLINED"}, "$", "required"),
    (
        "card-transaction",
        {
            **CARD_TRANSACTION,
            "settledAmount": {"amount": 1, "currency": {"code": "USD", "decimals": 2}},
        },
        "settledAmount.currency",
        "required",
    ),
    ("transaction-list-item", {"type": "CARD", "status": "REFUNDED"}, "status", "not"),
    ("platform-config", {**PLATFORM_CONFIG, "id": rid("Customer")}, "id", "pattern"),
    ("platform-config", {k: v for k, v in PLATFORM_CONFIG.items() if k != "id"}, "$", "required"),
    (
        "platform-config",
        {**PLATFORM_CONFIG, "webhookEndpoint": "ftp://x.example"},
        "webhookEndpoint",
        "pattern",
    ),
    (
        "platform-config",
        {**PLATFORM_CONFIG, "feeConfigs": [{"sourceCurrency": "EUR"}]},
        "feeConfigs[0].sourceCurrency",
        "const",
    ),
    (
        "platform-config",
        {**PLATFORM_CONFIG, "feeConfigs": [{"variableRateBps": 10001}]},
        "feeConfigs[0].variableRateBps",
        "maximum",
    ),
    (
        "verification",
        {
            **VERIFICATION,
            "errors": [{"resourceId": rid("Customer"), "type": "MISSING_FIELD", "reason": "r"}],
        },
        "errors[0]",
        "required",
    ),
    ("verification", {"id": rid("Verification")}, "$", "required"),
    ("internal-account", {**INTERNAL_ACCOUNT, "label": "x" * 256}, "label", "maxLength"),
    ("internal-account", {**INTERNAL_ACCOUNT, "type": "INTERNAL_FIAT"}, "sweepRule", "type"),
    ("internal-account", {**INTERNAL_ACCOUNT, "status": "OPEN"}, "status", "enum"),
    (
        "external-account",
        {"id": rid("ExternalAccount"), "status": "ACTIVE", "accountInfo": {}},
        "accountInfo",
        "required",
    ),
    ("kyc-link", {"kycUrl": "https://k", "provider": "P"}, "$", "required"),
    ("agreements", [{"type": "T", "version": "1"}], "$[0]", "required"),
    ("agreements", {"data": [{"type": "T", "version": "1"}]}, "data[0]", "required"),
    ("agreements", {"count": 1}, "$", "not"),
    ("requests/customer-create", {"customerType": "BUSINESS"}, "$", "required"),
    (
        "requests/customer-create",
        {"customerType": "INDIVIDUAL", "agreementConsents": [], "endUserTermsConsent": {}},
        "$",
        "not",
    ),
    (
        "requests/quote-create",
        {**VALID["requests/quote-create"][0], "remittanceInformation": "x" * 81},
        "remittanceInformation",
        "maxLength",
    ),
    (
        "requests/quote-create",
        {**VALID["requests/quote-create"][0], "lockedCurrencySide": "BOTH"},
        "lockedCurrencySide",
        "enum",
    ),
    (
        "requests/quote-create",
        {**VALID["requests/quote-create"][0], "lockedCurrencyAmount": 1.5},
        "lockedCurrencyAmount",
        "type",
    ),
    (
        "requests/internal-account-create",
        {"type": "RULE_BASED", "customerId": rid("Customer")},
        "$",
        "required",
    ),
    (
        "requests/config-patch",
        {
            "supportedCurrencies": [
                {
                    "currencyCode": "usd",
                    "minAmount": 1,
                    "maxAmount": 2,
                    "requiredCounterpartyFields": [],
                }
            ]
        },
        "supportedCurrencies[0].currencyCode",
        "pattern",
    ),
    ("requests/sandbox-send", {"quoteId": rid("Quote")}, "$", "required"),
    (
        "webhooks/test-event",
        {"test": False, "timestamp": TS, "webhookId": rid("Webhook"), "type": "TEST"},
        "test",
        "const",
    ),
    (
        "webhooks/test-event",
        {"test": True, "timestamp": TS, "webhookId": rid("Transaction"), "type": "TEST"},
        "webhookId",
        "pattern",
    ),
    ("webhooks/envelope", {"id": rid("Webhook"), "type": "X", "timestamp": TS}, "$", "required"),
    (
        "webhooks/payment-event",
        {
            "id": rid("Webhook"),
            "type": "OUTGOING_PAYMENT.COMPLETED",
            "timestamp": TS,
            "data": {"id": rid("Transaction")},
        },
        "data",
        "required",
    ),
    (
        "webhooks/card-transaction-event",
        {"id": rid("Webhook"), "type": "CARD_TRANSACTION.REFUNDED", "timestamp": TS, "data": {}},
        "type",
        "not",
    ),
    ("errors/error", {"status": True}, "status", "type"),  # "400" is allowed: not shown
    (
        "errors/error-401",
        {"status": 401, "code": "UNAUTHORIZED", "message": "nope"},
        "$",
        "required",
    ),
    ("errors/error-401", {"code": "UNAUTHORIZED", "details": {}}, "$", "required"),
    ("errors/error-401", {"code": "UNAUTHORIZED", "reason": ""}, "reason", "minLength"),
    (
        "errors/error-400",
        {"code": "INVALID_INPUT", "details": {"errors": []}},
        "details.errors",
        "minItems",
    ),
    ("errors/error-400", {"code": "INVALID_INPUT"}, "$", "required"),
    (
        "errors/error-400",
        {"code": "INVALID_INPUT", "details": {"errors": [{"constraint": "X"}]}},
        "details.errors[0]",
        "anyOf",
    ),
    (
        "errors/error-400",
        {"code": "INVALID_INPUT", "details": {"errors": [{"field": "a"}]}},
        "details.errors[0]",
        "anyOf",
    ),
]


def paths_and_keywords(violations: list[SchemaViolation]) -> set[tuple[str, str]]:
    """Where each violation was found and by which keyword."""
    return {(v.path, v.keyword) for v in violations}
