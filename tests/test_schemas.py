"""The JSON Schema documents of ``schemas/`` and the registry that loads them."""

from __future__ import annotations

import copy
import dataclasses
import datetime as dt
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from jsonschema import Draft202012Validator

from conformance.contract.schemas import (
    BASE_URI,
    SchemaLoadError,
    SchemaRegistry,
    SchemaViolation,
    UnknownSchemaError,
    default_registry,
    format_path,
)
from conformance.ground.datafiles import schemas_dir

ID_TYPES = (
    "Customer",
    "InternalAccount",
    "ExternalAccount",
    "Quote",
    "Transaction",
    "Verification",
    "BeneficialOwner",
    "Webhook",
    "PlatformConfig",
    "ScaChallenge",
    "Card",
)
UUID = "3f2b8c1e-4a5d-4e6f-8a9b-0c1d2e3f4a5b"
TS = "2025-10-13T12:00:00.000Z"


def rid(kind: str, n: int = 0) -> str:
    """A typed record id; ``n`` varies the last digit so ids differ."""
    return f"{kind}:{UUID[:-1]}{n % 10}"


USD = {"code": "USD", "name": "US Dollar", "symbol": "$", "decimals": 2}
EUR = {"code": "EUR", "name": "Euro", "symbol": "€", "decimals": 2}
ADDRESS = {
    "line1": "1 Main St",
    "line2": None,
    "city": "Springfield",
    "state": "IL",
    "postalCode": "62701",
    "country": "US",
}

INDIVIDUAL = {
    "id": rid("Customer"),
    "platformCustomerId": "platform-user-17",
    "customerType": "INDIVIDUAL",
    "fullName": "Ada Lovelace 001",
    "birthDate": "1990-01-31",
    "nationality": "GB",
    "email": "ada@example.com",
    "phoneNumber": "+15555550100",
    "region": "US",
    "currencies": ["USD", "USDC"],
    "address": ADDRESS,
    "kycStatus": "UNVERIFIED",
    "contactVerification": {"email": "PENDING", "phone": "VERIFIED"},
    "agreementConsents": [
        {
            "type": "SERVICE_END_USER_TERMS",
            "acceptedAt": TS,
            "ipAddress": "203.0.113.7",
            "termsVersion": "2025-01",
            "acceptanceMethod": "CLICKWRAP",
        }
    ],
    "idType": "SSN",
    "identifier": "123-45-6789",
    "countryOfIssuance": "US",
}
BUSINESS = {
    "id": rid("Customer", 1),
    "customerType": "BUSINESS",
    "kybStatus": "PENDING",
    "businessInfo": {
        "legalName": "Analytical Engines Ltd",
        "country": "US",
        "taxId": "12-3456789",
        "incorporatedOn": "2015-06-01",
        "registrationNumber": "REG-100001",
        "entityType": "LLC",
        "countriesOfOperation": ["US", "GB"],
    },
    "agreementConsents": [],
}
QUOTE = {
    "id": rid("Quote"),
    "status": "PENDING",
    "createdAt": TS,
    "expiresAt": "2025-10-13T12:05:00Z",
    "source": {"sourceType": "ACCOUNT", "accountId": rid("InternalAccount")},
    "destination": {
        "destinationType": "ACCOUNT",
        "accountId": rid("ExternalAccount"),
        "paymentRail": "ACH",
    },
    "sendingCurrency": USD,
    "receivingCurrency": EUR,
    "totalSendingAmount": 10_000,
    "totalReceivingAmount": 9_170,
    "exchangeRate": 0.92,
    "feesIncluded": 30,
    "platformFeesIncluded": 0,
    "transactionId": rid("Transaction"),
    "description": "invoice 7",
    "rateDetails": {
        "counterpartyMultiplier": 0.92,
        "counterpartyFixedFee": 0,
        "serviceApiMultiplier": 1.0,
        "serviceApiFixedFee": 0,
        "serviceApiVariableFeeRate": 0.003,
        "serviceApiVariableFeeAmount": 30,
    },
}
JIT_QUOTE = {
    "id": rid("Quote", 2),
    "status": "PENDING",
    "source": {"sourceType": "REALTIME_FUNDING", "customerId": rid("Customer"), "currency": "USDC"},
    "destination": {"destinationType": "UMA_ADDRESS", "umaAddress": "$bob@uma.example"},
    "sendingCurrency": {"code": "USDC", "name": "USD Coin", "symbol": "USDC", "decimals": 6},
    "receivingCurrency": USD,
    "totalSendingAmount": 1_000_000,
    "totalReceivingAmount": 100,
    "exchangeRate": 0.0001,
    "paymentInstructions": [
        {
            "instructionsNotes": "Include the reference",
            "accountOrWalletInfo": {
                "accountType": "US_ACCOUNT",
                "reference": "REF-123",
                "accountNumber": "000123456789",
                "routingNumber": "021000021",
                "accountHolderName": "Service Inc",
                "accountCategory": "CHECKING",
                "bankName": "Bank",
            },
        },
        {"accountOrWalletInfo": {"accountType": "BITCOIN_L1", "address": "bc1qexample"}},
    ],
}
SCA_QUOTE = {
    "id": rid("Quote", 3),
    "status": "PENDING_AUTHORIZATION",
    "scaChallenge": {
        "id": rid("ScaChallenge"),
        "expiresAt": TS,
        "factor": "SMS_OTP",
        "availableFactors": ["SMS_OTP", "PASSKEY"],
        "purpose": "PAYOUT",
    },
}
TRANSACTION = {
    "id": rid("Transaction"),
    "status": "COMPLETED",
    "type": "OUTGOING",
    "direction": "DEBIT",
    "customerId": rid("Customer"),
    "platformCustomerId": "platform-user-17",
    "source": {"sourceType": "ACCOUNT", "accountId": rid("InternalAccount")},
    "destination": {
        "destinationType": "ACCOUNT",
        "accountId": rid("ExternalAccount"),
        "onChainTransaction": {"transactionHash": "0xabc", "network": "BASE"},
    },
    "sentAmount": {"amount": 10_000, "currency": {"code": "USD", "decimals": 2}},
    "receivedAmount": {"amount": 9_170, "currency": EUR},
    "exchangeRate": 0.92,
    "quoteId": rid("Quote"),
    "description": "invoice 7",
    "settledAt": TS,
    "createdAt": TS,
    "failureReason": None,
    "refund": None,
    "reconciliationInstructions": {"transactionHash": "0xdef"},
}
FAILED_TRANSACTION = {
    **TRANSACTION,
    "status": "FAILED",
    "failureReason": "QUOTE_EXECUTION_FAILED",
    "settledAt": None,
    "refund": {"status": "PENDING"},
}
CARD_TRANSACTION = {
    "id": "CardTransaction-1",
    "status": "SETTLED",
    "direction": "DEBIT",
    "settledAmount": {"amount": 1_250, "currency": USD},
    "merchant": {"name": "Coffee", "city": "Austin", "state": "TX"},
}
DECLINED_CARD_TRANSACTION = {
    "status": "DECLINED",
    "direction": "DEBIT",
    "cardDeclinedReason": "INSUFFICIENT_FUNDS",
}
# A PlatformConfig as the reference emits it (SANDBOX.md, "PlatformConfig fields not
# shown in detail").
PLATFORM_CONFIG = {
    "id": rid("PlatformConfig"),
    "umaDomain": "primary.sandbox.uma.example",
    "proxyUmaSubdomain": "primary-1a2b3c4d",
    "webhookEndpoint": "http://127.0.0.1:8765/webhooks",
    "supportedCurrencies": [
        {
            "currencyCode": "USD",
            "minAmount": 1,
            "maxAmount": 100_000_000,
            "requiredCounterpartyFields": [
                {"name": "FULL_NAME", "mandatory": True},
                {"name": "BIRTH_DATE", "mandatory": False},
            ],
            "providerRequiredCustomerFields": ["FULL_NAME", "ADDRESS"],
        }
    ],
    "feeConfigs": [{"sourceCurrency": "USD", "variableRateBps": 25, "fixedFee": 10}],
    "cardTokenization2faConfig": {"brandName": "Example", "supportUrl": "https://example.com"},
    "createdAt": TS,
    "updatedAt": "2025-10-13T12:00:00.001Z",
}
VERIFICATION = {
    "id": rid("Verification"),
    "customerId": rid("Customer"),
    "verificationStatus": "RESOLVE_ERRORS",
    "errors": [
        {
            "resourceId": rid("Customer"),
            "type": "MISSING_FIELD",
            "reason": "birthDate is required",
            "field": "birthDate",
        },
        {
            "resourceId": rid("BeneficialOwner"),
            "type": "MISSING_IDENTITY_DOCUMENT",
            "reason": "an identity document is required",
            "acceptedDocumentTypes": ["PASSPORT", "DRIVERS_LICENSE"],
        },
    ],
    "createdAt": TS,
}
INTERNAL_ACCOUNT = {
    "id": rid("InternalAccount"),
    "type": "RULE_BASED",
    "status": "ACTIVE",
    "currency": "USD",
    "customerId": rid("Customer"),
    "label": "payroll",
    "sweepRule": {"destinationAccountId": rid("InternalAccount", 1)},
    "fundingPaymentInstructions": [
        {"accountOrWalletInfo": {"accountType": "US_ACCOUNT", "accountNumber": "1"}}
    ],
    "availableBalance": {"amount": 0, "currency": USD},
    "createdAt": TS,
    "updatedAt": TS,
}
ERROR_400 = {
    "status": 400,
    "code": "INVALID_INPUT",
    "message": "2 invalid fields",
    "details": {
        "errors": [
            {
                "field": "supportedCurrencies[0].currencyCode",
                "constraint": "ISO_4217",
                "message": "must be an ISO 4217 code",
            },
            {"pointer": "/supportedCurrencies/0/minAmount", "rule": "INTEGER"},
        ]
    },
}
ERROR_401_TOP = {
    "status": 401,
    "code": "UNAUTHORIZED",
    "message": "no",
    "reason": "Invalid OTP code",
}
ERROR_401_DETAILS = {"code": "UNAUTHORIZED", "details": {"reason": "bad credentials"}}

VALID: dict[str, list[Any]] = {
    "customer": [INDIVIDUAL, BUSINESS, {"id": rid("Customer"), "customerType": "INDIVIDUAL"}],
    "beneficial-owner": [
        {
            "id": rid("BeneficialOwner"),
            "customerId": rid("Customer", 1),
            "roles": ["DIRECTOR"],
            "ownershipPercentage": 25.5,
            "personalInfo": {
                "firstName": "Grace",
                "lastName": "Hopper 001",
                "birthDate": "1970-12-09",
                "nationality": "US",
                "address": ADDRESS,
                "idType": "SSN",
                "identifier": "123-45-6789",
                "countryOfIssuance": "US",
            },
        }
    ],
    "document": [
        {
            "id": "Document:1",
            "documentHolder": rid("Customer"),
            "documentType": "DRIVERS_LICENSE",
            "side": "FRONT",
            "documentNumber": "D123",
            "issuingAuthority": "DMV",
            "country": "US",
        },
        {"documentHolder": rid("BeneficialOwner"), "documentType": "PROOF_OF_ADDRESS"},
    ],
    "verification": [
        VERIFICATION,
        {"id": rid("Verification"), "verificationStatus": "IN_PROGRESS"},
    ],
    "external-account": [
        {
            "id": rid("ExternalAccount"),
            "customerId": rid("Customer"),
            "status": "PENDING_OWNERSHIP_VERIFICATION",
            "currency": "USDC",
            "accountInfo": {"accountType": "SOLANA_WALLET", "address": "So1anaAddr003"},
        }
    ],
    "internal-account": [
        INTERNAL_ACCOUNT,
        {
            "id": rid("InternalAccount", 2),
            "type": "INTERNAL_FIAT",
            "status": "PENDING",
            "customerId": None,
            "label": None,
            "sweepRule": None,
        },
        {"id": rid("InternalAccount", 3), "type": "EMBEDDED_WALLET", "status": "FROZEN"},
    ],
    "quote": [QUOTE, JIT_QUOTE, SCA_QUOTE],
    "transaction": [TRANSACTION, FAILED_TRANSACTION],
    "transaction-list-item": [TRANSACTION, {**CARD_TRANSACTION, "type": "CARD"}],
    "card-transaction": [
        CARD_TRANSACTION,
        DECLINED_CARD_TRANSACTION,
        {"status": "AUTHORIZED", "direction": "DEBIT"},
        {
            "status": "SETTLED",
            "direction": "CREDIT",
            "settledAmount": {"amount": 500, "currency": USD},
            "originalTransactionId": "CardTransaction-1",
        },
    ],
    "platform-config": [
        PLATFORM_CONFIG,
        {**PLATFORM_CONFIG, "webhookEndpoint": None, "cardTokenization2faConfig": None},
        {"id": rid("PlatformConfig")},
    ],
    "agreements": [
        [{"type": "SERVICE_END_USER_TERMS", "version": "2025-01", "url": "https://x.example/t"}],
        {"data": [{"type": "PRIVACY", "version": "3", "url": "https://x.example/p"}], "next": None},
        {"agreements": []},
    ],
    "end-user-terms": [{"version": "2025-01", "url": "https://x.example/terms"}],
    "sca-session": [
        {"sessionExpiresAt": TS},
        {"sessionExpiresAt": TS, "customerId": rid("Customer")},
    ],
    "wallet-credential": [
        {"id": f"Credential:{UUID}"},
        {"id": "c1", "type": "PASSKEY", "status": "ACTIVE", "passkey": {"signCount": 1}},
    ],
    "wallet-session": [{}, {"id": f"Session:{UUID}", "createdAt": TS, "expiresAt": TS}],
    "wallet-challenge": [
        {"otpEncryptionTargetBundle": "{}"},
        {"challenge": "abc", "credentialId": "def", "requestId": "r1"},
    ],
    "wallet-verify": [{}, {"encryptedSessionSigningKey": "{}", "session": {"id": "s"}}],
    "wallet-signature-challenge": [{"payloadToSign": "{}", "requestId": "r1", "extra": 1}],
    "kyc-link": [
        {"kycUrl": "https://kyc.example/l/1", "expiresAt": TS, "provider": "ACME"},
        {"kycUrl": "https://kyc.example/l/2", "expiresAt": TS, "provider": "ACME", "token": "t"},
    ],
    "requests/customer-create": [
        {"customerType": "INDIVIDUAL", "fullName": "Ada Lovelace 001"},
        {
            "customerType": "BUSINESS",
            "businessInfo": BUSINESS["businessInfo"],
            "endUserTermsConsent": {"acceptedAt": TS, "termsVersion": "1"},
        },
    ],
    "requests/customer-update": [{}, {"agreementConsents": [{"type": "X", "termsVersion": "1"}]}],
    "requests/config-patch": [
        {},
        {"webhookEndpoint": None},
        {
            "umaDomain": "pay.example.com",
            "webhookEndpoint": "https://hooks.example.com/in",
            "supportedCurrencies": [
                {
                    "currencyCode": "EUR",
                    "minAmount": 1,
                    "maxAmount": 5,
                    "requiredCounterpartyFields": [],
                }
            ],
            "feeConfigs": [{"sourceCurrency": "USD", "variableRateBps": 10000}],
            "cardTokenization2faConfig": {"brandName": "B"},
        },
    ],
    "requests/beneficial-owner-create": [
        {
            "customerId": rid("Customer", 1),
            "roles": ["DIRECTOR"],
            "ownershipPercentage": 30,
            "personalInfo": {"firstName": "G", "lastName": "H"},
        }
    ],
    "requests/external-account-create": [
        {
            "customerId": rid("Customer"),
            "currency": "USD",
            "accountInfo": {"accountType": "US_ACCOUNT", "accountNumber": "000123456003"},
        }
    ],
    "requests/internal-account-create": [
        {"type": "RULE_BASED", "currency": "USD", "customerId": rid("Customer"), "sweepRule": {}}
    ],
    "requests/kyc-link-create": [{"redirectUri": "https://app.example/done"}],
    "requests/verification-create": [{"customerId": rid("Customer")}],
    "requests/quote-create": [
        {
            "source": {"sourceType": "ACCOUNT", "accountId": rid("InternalAccount")},
            "destination": {"destinationType": "ACCOUNT", "accountId": rid("ExternalAccount")},
            "lockedCurrencySide": "SENDING",
            "lockedCurrencyAmount": 10_000,
            "immediatelyExecute": True,
            "remittanceInformation": "x" * 80,
            "platformFeeOverride": {"fixedFee": 5},
        }
    ],
    "requests/quote-authorize": [{"code": "000000"}, {}],
    "requests/sandbox-send": [
        {"quoteId": rid("Quote"), "currencyCode": "USDC"},
        {"quoteId": rid("Quote"), "currencyCode": "USD", "currencyAmount": 100},
    ],
    "requests/sandbox-fund": [{"amount": 10_000}],
    "requests/contact-confirm": [{"code": "000000"}],
    "webhooks/envelope": [
        {"id": rid("Webhook"), "type": "CUSTOMER.KYC_APPROVED", "timestamp": TS, "data": {}}
    ],
    "webhooks/test-event": [
        {"test": True, "timestamp": TS, "webhookId": rid("Webhook"), "type": "TEST"}
    ],
    "webhooks/payment-event": [
        {
            "id": rid("Webhook"),
            "type": "OUTGOING_PAYMENT.COMPLETED",
            "timestamp": TS,
            "data": TRANSACTION,
        },
        {
            "id": rid("Webhook", 1),
            "type": "INCOMING_PAYMENT.REFUND_PENDING",
            "timestamp": TS,
            "data": FAILED_TRANSACTION,
        },
    ],
    "webhooks/card-transaction-event": [
        {
            "id": rid("Webhook"),
            "type": "CARD_TRANSACTION.SETTLED",
            "timestamp": TS,
            "data": CARD_TRANSACTION,
        }
    ],
    "errors/error": [
        {"status": 404, "code": "NOT_FOUND", "message": "no such path"},
        {"code": "QUOTE_EXPIRED"},
        {},
    ],
    "errors/error-400": [ERROR_400],
    "errors/error-401": [ERROR_401_TOP, ERROR_401_DETAILS],
}

# One valid value per definition of common.json: every definition is exercised.
COMMON_VALID: dict[str, Any] = {
    "Timestamp": TS,
    "Date": "2024-02-29",
    "CountryCode": "US",
    "CurrencyCode": "USDC",
    "Amount": -5,
    "Decimals": 0,
    "Currency": {"code": "USD", "decimals": 2},
    "CurrencyFull": USD,
    "CurrencyAmount": {"amount": 1, "currency": {"code": "BTC", "decimals": 8}},
    "CurrencyAmountFull": {"amount": 1, "currency": USD},
    "Uuid": UUID.upper(),
    "TypedId": rid("Card"),
    "AccountId": rid("ExternalAccount"),
    "UserInfoFieldName": "TAX_ID",
    "Address": ADDRESS,
    "VerificationStatus": "HOLD",
    "AgreementConsent": {"type": "X"},
    "EndUserTermsConsent": {"termsVersion": "1"},
    "BusinessInfo": BUSINESS["businessInfo"],
    "BusinessInfoPatch": {"taxId": "1"},
    "PersonalInfo": {"lastName": "Hopper"},
    "PaymentInstruction": {"accountOrWalletInfo": {"accountType": "US_ACCOUNT"}},
    "OnChainTransaction": {"transactionHash": "0x1"},
    "Source": {"sourceType": "ACCOUNT", "accountId": rid("InternalAccount")},
    "Destination": {"destinationType": "UMA_ADDRESS"},
    **{f"{kind}Id": rid(kind) for kind in ID_TYPES},
}

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
    ("customer", {**INDIVIDUAL, "businessInfo": BUSINESS["businessInfo"]}, "businessInfo", "type"),
    ("customer", {**BUSINESS, "businessInfo": None}, "businessInfo", "type"),
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


@pytest.fixture(scope="module")
def registry() -> SchemaRegistry:
    return SchemaRegistry.load()


def _paths_and_keywords(violations: list[SchemaViolation]) -> set[tuple[str, str]]:
    return {(v.path, v.keyword) for v in violations}


# ---------------------------------------------------------------- documents


SCHEMAS_ROOT = schemas_dir()
SCHEMA_FILES = sorted(SCHEMAS_ROOT.rglob("*.json"))


@pytest.mark.parametrize(
    "path", SCHEMA_FILES, ids=lambda p: p.relative_to(SCHEMAS_ROOT).with_suffix("").as_posix()
)
def test_every_document_is_a_valid_2020_12_schema_with_title_and_clause(path: Path) -> None:
    document = json.loads(path.read_text(encoding="utf-8"))
    Draft202012Validator.check_schema(document)
    assert document["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert document["$id"] == BASE_URI + path.relative_to(SCHEMAS_ROOT).as_posix()
    assert document["title"]
    assert "§" in document["description"]


def test_no_document_forbids_additional_properties() -> None:
    def walk(node: object) -> None:
        if isinstance(node, dict):
            assert node.get("additionalProperties") is not False
            assert node.get("unevaluatedProperties") is not False
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for item in node:
                walk(item)

    for path in SCHEMA_FILES:
        walk(json.loads(path.read_text(encoding="utf-8")))


def test_registry_loads_every_document(registry: SchemaRegistry) -> None:
    expected = {p.relative_to(registry.directory).with_suffix("").as_posix() for p in SCHEMA_FILES}
    assert set(registry.names()) == expected
    assert registry.names() == sorted(expected)


def test_every_document_has_valid_samples(registry: SchemaRegistry) -> None:
    assert set(VALID) == set(registry.names()) - {"common"}


def test_every_common_definition_has_a_sample(registry: SchemaRegistry) -> None:
    assert set(COMMON_VALID) == set(registry.document("common")["$defs"])


@pytest.mark.parametrize(
    ("name", "index"), [(n, i) for n, items in VALID.items() for i in range(len(items))]
)
def test_valid_examples_pass(registry: SchemaRegistry, name: str, index: int) -> None:
    assert registry.violations(name, VALID[name][index]) == []


@pytest.mark.parametrize("definition", sorted(COMMON_VALID))
def test_common_definitions_accept_their_sample(registry: SchemaRegistry, definition: str) -> None:
    assert registry.violations(f"common#/$defs/{definition}", COMMON_VALID[definition]) == []


@pytest.mark.parametrize(
    ("name", "instance", "path", "keyword"),
    INVALID,
    ids=[f"{case[0]}:{case[2]}:{case[3]}:{i}" for i, case in enumerate(INVALID)],
)
def test_invalid_examples_fail_at_the_right_place(
    registry: SchemaRegistry, name: str, instance: Any, path: str, keyword: str
) -> None:
    violations = registry.violations(name, instance)
    assert (path, keyword) in _paths_and_keywords(violations), violations


# ---------------------------------------------------------------- leniency


def _with_extras(value: Any) -> Any:
    """Add an unknown property to every object of ``value``."""
    if isinstance(value, dict):
        return {**{k: _with_extras(v) for k, v in value.items()}, "vendorExtension": {"x": [1]}}
    if isinstance(value, list):
        return [_with_extras(item) for item in value]
    return value


@pytest.mark.parametrize(
    "name",
    [n for n in VALID if n not in {"agreements"}],  # an extra array would be a second list
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


# ---------------------------------------------------------------- generated values


@given(kind=st.sampled_from(ID_TYPES), uid=st.uuids(), upper=st.booleans())
def test_generated_typed_ids_are_valid(
    registry: SchemaRegistry, kind: str, uid: Any, upper: bool
) -> None:
    text = str(uid).upper() if upper else str(uid)
    assert registry.is_valid(f"common#/$defs/{kind}Id", f"{kind}:{text}")
    assert registry.is_valid("common#/$defs/TypedId", f"{kind}:{text}")


@given(
    kind=st.sampled_from(ID_TYPES),
    other=st.sampled_from(ID_TYPES),
    uid=st.uuids(),
)
def test_typed_ids_with_a_wrong_prefix_are_invalid(
    registry: SchemaRegistry, kind: str, other: str, uid: Any
) -> None:
    value = f"{other}:{uid}"
    assert registry.is_valid(f"common#/$defs/{kind}Id", value) == (kind == other)


@given(prefix=st.text(min_size=1, max_size=20).filter(lambda s: s not in ID_TYPES), uid=st.uuids())
def test_unknown_prefixes_are_not_record_ids(
    registry: SchemaRegistry, prefix: str, uid: Any
) -> None:
    assert not registry.is_valid("common#/$defs/TypedId", f"{prefix}:{uid}")


@given(
    kind=st.sampled_from(ID_TYPES),
    garbage=st.from_regex(r"\A[0-9a-fA-F-]{0,40}\Z").filter(
        lambda s: len(s) != 36 or s.count("-") != 4
    ),
)
def test_ids_without_a_uuid_are_invalid(registry: SchemaRegistry, kind: str, garbage: str) -> None:
    assert not registry.is_valid(f"common#/$defs/{kind}Id", f"{kind}:{garbage}")


@given(moment=st.datetimes(timezones=st.just(dt.UTC)), zulu=st.booleans())
def test_utc_timestamps_are_valid(registry: SchemaRegistry, moment: Any, zulu: bool) -> None:
    text = moment.isoformat()
    if zulu:
        text = text.replace("+00:00", "Z")
    assert registry.is_valid("common#/$defs/Timestamp", text), text


@given(
    moment=st.datetimes(),
    offset_minutes=st.integers(min_value=-14 * 60, max_value=14 * 60).filter(bool),
)
def test_non_utc_or_naive_timestamps_are_invalid(
    registry: SchemaRegistry, moment: Any, offset_minutes: int
) -> None:
    zone = dt.timezone(dt.timedelta(minutes=offset_minutes))
    assert not registry.is_valid("common#/$defs/Timestamp", moment.isoformat())
    assert not registry.is_valid("common#/$defs/Timestamp", moment.replace(tzinfo=zone).isoformat())


@given(amount=st.integers())
def test_integer_amounts_are_valid(registry: SchemaRegistry, amount: int) -> None:
    assert registry.is_valid("common#/$defs/Amount", amount)


@given(amount=st.floats(allow_nan=False, allow_infinity=False).filter(lambda f: not f.is_integer()))
def test_fractional_amounts_are_invalid(registry: SchemaRegistry, amount: float) -> None:
    assert not registry.is_valid("common#/$defs/Amount", amount)


# ---------------------------------------------------------------- registry behaviour


def test_names_ids_and_fragments_reach_the_same_cached_validator(registry: SchemaRegistry) -> None:
    first = registry.validator("quote")
    assert registry.validator("quote.json") is first
    assert registry.validator(BASE_URI + "quote.json") is first
    assert registry.schema_id("webhooks/envelope") == BASE_URI + "webhooks/envelope.json"
    assert registry.validator("common#/$defs/Timestamp") is registry.validator(
        BASE_URI + "common.json#/$defs/Timestamp"
    )


def test_titles_of_documents_and_definitions(registry: SchemaRegistry) -> None:
    assert registry.title("platform-config") == "PlatformConfig"
    assert registry.title("common#/$defs/Timestamp") == "Timestamp"
    violation = registry.violations("platform-config", {"id": 1})[0]
    assert violation.schema_title == "PlatformConfig"


def test_unknown_schema_names_are_reported_with_the_known_ones(registry: SchemaRegistry) -> None:
    with pytest.raises(UnknownSchemaError, match=r"unknown schema 'qoute'.*quote"):
        registry.validator("qoute")
    with pytest.raises(UnknownSchemaError, match=r"no definition at #/\$defs/Nope"):
        registry.violations("common#/$defs/Nope", 1)


def test_default_registry_is_loaded_once() -> None:
    assert default_registry() is default_registry()
    assert "quote" in default_registry().names()


def test_violation_is_a_frozen_slots_value(registry: SchemaRegistry) -> None:
    violation = registry.violations("quote", {**QUOTE, "totalSendingAmount": 1.5})[0]
    assert violation == SchemaViolation(
        "totalSendingAmount",
        "type",
        "1.5 is not of type 'integer'",
        "Quote",
        ("totalSendingAmount",),
    )
    assert not hasattr(violation, "__dict__")
    with pytest.raises(dataclasses.FrozenInstanceError):
        violation.path = "x"  # type: ignore[misc]
    assert str(violation) == "totalSendingAmount: 1.5 is not of type 'integer'"


def test_violation_paths_read_like_code(registry: SchemaRegistry) -> None:
    config = copy.deepcopy(PLATFORM_CONFIG)
    config["supportedCurrencies"][0]["minAmount"] = "1"
    config["supportedCurrencies"][0]["requiredCounterpartyFields"][1]["name"] = "SHOE_SIZE"
    paths = [v.path for v in registry.violations("platform-config", config)]
    assert paths == [
        "supportedCurrencies[0].minAmount",
        "supportedCurrencies[0].requiredCounterpartyFields[1].name",
    ]


def test_messages_show_the_offending_value_truncated(registry: SchemaRegistry) -> None:
    long_id = "Customer:" + "z" * 500
    (violation,) = registry.violations("customer", {**INDIVIDUAL, "id": long_id})
    assert violation.message.startswith('"Customer:zzz')
    assert "..." in violation.message
    assert len(violation.message) < 300
    assert "Customer identifier" in violation.message


def test_messages_of_nullable_fields_explain_the_non_null_shape(registry: SchemaRegistry) -> None:
    (violation,) = registry.violations("transaction", {**TRANSACTION, "settledAt": "yesterday"})
    assert violation.path == "settledAt"
    assert violation.keyword == "pattern"
    assert "Timestamp" in violation.message


def test_messages_name_the_alternative_keys(registry: SchemaRegistry) -> None:
    body = {"code": "INVALID_INPUT", "details": {"errors": [{"message": "bad"}]}}
    messages = {v.message for v in registry.violations("errors/error-400", body)}
    assert "needs one of the properties 'field', 'path', 'pointer', 'name', 'property'" in messages
    assert "needs one of the properties 'constraint', 'code', 'rule', 'type'" in messages


def test_removed_values_are_named_in_the_message(registry: SchemaRegistry) -> None:
    (violation,) = registry.violations("card-transaction", {"status": "REFUNDED"})
    assert violation.message == '"REFUNDED" is not allowed here (excluded: "REFUNDED")'


@pytest.mark.parametrize(
    ("parts", "expected"),
    [
        ((), "$"),
        (("a",), "a"),
        (("a", 0, "b"), "a[0].b"),
        ((0, "url"), "$[0].url"),
        (("odd key", 1), '$["odd key"][1]'),
        (("a", "b.c"), 'a["b.c"]'),
    ],
)
def test_format_path(parts: tuple[str | int, ...], expected: str) -> None:
    assert format_path(parts) == expected


# ---------------------------------------------------------------- load errors


def _write(root: Path, name: str, document: object) -> Path:
    path = root / f"{name}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(document) if not isinstance(document, str) else document)
    return path


def _doc(name: str, **body: Any) -> dict[str, Any]:
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": f"{BASE_URI}{name}.json",
        "title": name,
        "description": "§0 test",
        **body,
    }


def test_a_small_folder_loads_with_relative_refs(tmp_path: Path) -> None:
    _write(tmp_path, "common", _doc("common", **{"$defs": {"N": {"type": "integer"}}}))
    _write(
        tmp_path,
        "sub/thing",
        _doc("sub/thing", properties={"n": {"$ref": "../common.json#/$defs/N"}}),
    )
    loaded = SchemaRegistry.load(tmp_path)
    assert loaded.names() == ["common", "sub/thing"]
    assert [v.path for v in loaded.violations("sub/thing", {"n": "x"})] == ["n"]


@pytest.mark.parametrize(
    ("content", "match"),
    [
        ("{not json", "cannot be read as JSON"),
        ([1, 2], "does not hold a JSON object"),
        (_doc("broken", type=5), "not a valid JSON Schema 2020-12 document"),
        ({**_doc("broken"), "$id": BASE_URI + "elsewhere.json"}, "expected"),
        (_doc("broken", properties={"a": {"$ref": "missing.json#/$defs/X"}}), "does not resolve"),
        (_doc("broken", properties={"a": {"$ref": "#/$defs/Nope"}}), "does not resolve"),
    ],
    ids=["bad-json", "not-object", "bad-schema", "wrong-id", "missing-document", "missing-def"],
)
def test_bad_documents_are_reported_with_their_file(
    tmp_path: Path, content: object, match: str
) -> None:
    path = _write(tmp_path, "broken", content)
    with pytest.raises(SchemaLoadError, match=match) as caught:
        SchemaRegistry.load(tmp_path)
    assert str(path) in str(caught.value)


def test_an_empty_folder_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(SchemaLoadError, match="no schema documents"):
        SchemaRegistry.load(tmp_path)


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
    assert _paths_and_keywords(registry.violations("platform-config", config))


def test_a_completed_transaction_carries_no_failure_reason(registry: SchemaRegistry) -> None:
    done = {"id": rid("Transaction"), "status": "COMPLETED", "failureReason": None}
    assert registry.violations("transaction", done) == []
    assert (
        registry.violations("transaction", {k: v for k, v in done.items() if k != "failureReason"})
        == []
    )
    stale = {**done, "failureReason": "PAYOUT_RETURNED"}
    [problem] = registry.violations("transaction-list-item", stale)
    assert problem.path == "failureReason"
    assert registry.clause("transaction-list-item") == "§2 Resources and their fields — Transaction"


@pytest.mark.parametrize("instructions", [None, [], "missing"])
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
