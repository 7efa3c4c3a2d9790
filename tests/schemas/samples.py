"""Sample records of the interface's resources, as a conforming service would send them.

The building blocks (typed ids, timestamps, currencies) and one full record per resource;
the valid and invalid examples of the schema tests are made from them.
"""

from __future__ import annotations

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
    "reconciliationInstructions": {"transactionHash": "0xdef"},
}
FAILED_TRANSACTION = {
    **TRANSACTION,
    "status": "FAILED",
    "failureReason": "QUOTE_EXECUTION_FAILED",
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
