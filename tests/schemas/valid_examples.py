"""Valid examples: at least one per schema document and one per definition of common.json."""

from __future__ import annotations

from typing import Any

from .samples import (
    ADDRESS,
    BUSINESS,
    CARD_TRANSACTION,
    DECLINED_CARD_TRANSACTION,
    ERROR_400,
    ERROR_401_DETAILS,
    ERROR_401_TOP,
    FAILED_TRANSACTION,
    ID_TYPES,
    INDIVIDUAL,
    INTERNAL_ACCOUNT,
    JIT_QUOTE,
    PLATFORM_CONFIG,
    QUOTE,
    SCA_QUOTE,
    TRANSACTION,
    TS,
    USD,
    UUID,
    VERIFICATION,
    rid,
)

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
        {
            **{k: v for k, v in PLATFORM_CONFIG.items() if k != "webhookEndpoint"},
            "cardTokenization2faConfig": None,  # an inner shape not shown: open
        },
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
    # the reference's choices where the interface shows no body (reference_choices.py)
    "requests/transfer": [
        {
            "source": {"accountId": rid("ExternalAccount")},
            "destination": {"accountId": rid("InternalAccount")},
            "amount": 1_000,
            "description": "rent",
        }
    ],
    "requests/sca-login-complete": [{"customerId": rid("Customer"), "code": "000000"}],
    "requests/credential-create": [
        {"customerId": rid("Customer"), "type": "EMAIL_OTP", "email": "ann@example.com"},
        {"customerId": rid("Customer"), "type": "SMS_OTP"},
        {"customerId": rid("Customer"), "type": "OAUTH", "oidcToken": "eyJh.eyJz.c2ln"},
    ],
    "requests/wallet-export": [{"targetPublicKey": "02" + "ab" * 32}],
    "requests/card-tokenize": [
        {"walletProvider": "APPLE_PAY"},
        {"walletProvider": "GOOGLE_PAY", "deviceId": "d-1", "nonce": "n-1", "clientId": "c"},
    ],
    "requests/card-return-reversal": [{"transactionId": rid("CardTransaction")}],
    "requests/ownership-verify": [{"signature": "MEUCIQD="}],
    "requests/credential-challenge": [{}, {"clientPublicKey": "02" + "ab" * 32}],
    "requests/credential-verify": [
        {"encryptedOtpBundle": {"encappedPublic": "04ab", "ciphertext": "cd"}},
        {"encryptedOtpBundle": '{"encappedPublic": "04ab", "ciphertext": "cd"}'},  # SANDBOX.md
        {"oidcToken": "eyJh.eyJz.c2ln", "clientPublicKey": "02" + "ab" * 32},
        {
            "assertion": {
                "credentialId": "abc",
                "signature": "c2ln",
                "clientDataJson": "e30",
                "authenticatorData": "AAAA",
            }
        },
    ],
    "requests/document-upload": [
        {
            "documentHolder": rid("Customer"),
            "documentType": "PASSPORT",
            "documentNumber": "X1234567",
            "issuingAuthority": "Passport Office",
            "file": "%PDF-1.4",
        },
        {
            "documentHolder": rid("BeneficialOwner"),
            "documentType": "UTILITY_BILL",
            "file": "%PDF-1.7",
        },
    ],
    "requests/wallet-privacy": [{"privateEnabled": True}],
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
