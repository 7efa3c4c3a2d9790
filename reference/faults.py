"""Fault modes: start-up switches that each break exactly one stated behaviour.

The project's self-tests start the sandbox with a fault and check that the conformance
suite notices. Each fault is checked at the single place its behaviour lives, through
``ServerSettings.has_fault``.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Mapping
from types import MappingProxyType

# Each description is one line: what the sandbox does wrong, then the clause it breaks.
FAULTS: Mapping[str, str] = MappingProxyType(
    {
        "config-wrong-type": (
            "config responses render supportedCurrencies[].minAmount as a string"
            " (§2 PlatformConfig: integer)"
        ),
        "config-missing-id": "config responses omit id (§2 PlatformConfig: id)",
        "config-local-timestamps": (
            "config createdAt/updatedAt are rendered at +02:00, not UTC"
            " (§0 Conventions: timestamps are ISO 8601 UTC)"
        ),
        "config-no-default-uma-domain": (
            "umaDomain is null while the platform has set none"
            " (§2 PlatformConfig: a default domain applies)"
        ),
        "config-bad-provider-fields": (
            "providerRequiredCustomerFields in responses also lists SSN"
            " (§2 PlatformConfig: values are UserInfoFieldName)"
        ),
        "config-provider-fields-writable": (
            "a providerRequiredCustomerFields list sent on PATCH is stored and returned"
            " (§2 PlatformConfig: read-only)"
        ),
        "config-proxy-subdomain-writable": (
            "a proxyUmaSubdomain sent on PATCH is stored and returned"
            " (§2 PlatformConfig: assigned by the service)"
        ),
        "config-patch-ignored": (
            "PATCH /config answers 200 but does not apply valid changes (§4 Platform configuration)"
        ),
        "config-patch-resets-unsent": (
            "PATCH /config resets unsent fields to their seeds, webhookEndpoint excepted (the"
            " suite's webhook sink needs it) (§4 Platform configuration: partial update)"
        ),
        "config-fees-dropped": (
            "PATCH /config answers 200 to a valid feeConfigs but keeps the previous one"
            " (§4 Platform configuration)"
        ),
        "validation-first-error-only": (
            "a 400 INVALID_INPUT lists only the first invalid field"
            " (§7 Errors: every invalid field at once)"
        ),
        "config-accept-http-webhook": (
            "accepts an http:// webhookEndpoint on a non-loopback host"
            " (§2 PlatformConfig: HTTPS URL)"
        ),
        "config-fee-any-currency": (
            "accepts a fee config whose sourceCurrency is not USD"
            " (§2 PlatformConfig: USD source currency only)"
        ),
        "config-accept-lowercase-currency": (
            "accepts any three letters in any case as currencyCode, stored upper-cased"
            " (§2 PlatformConfig: ISO 4217)"
        ),
        "config-amounts-optional": (
            "accepts a supportedCurrencies entry without minAmount/maxAmount, stored as null"
            " (§2 PlatformConfig: required)"
        ),
        "config-shared-across-platforms": (
            "PATCH /config by one platform also changes the other platform's config"
            " (§1 What the service does: per-platform configuration)"
        ),
        "auth-accept-missing": (
            "a request without Authorization is served as the primary platform (§5 Authentication)"
        ),
        "auth-accept-wrong-secret": (
            "a known token id with a wrong secret is accepted (§5 Authentication)"
        ),
        "auth-accept-production-keys": (
            "production credentials are accepted by the sandbox"
            " (§5 Authentication: keys bound to one environment)"
        ),
        "auth-no-reason": "401 responses omit reason (§5 Authentication: reason names the check)",
        "webhook-forged-signature": (
            "deliveries are signed with a key other than the published one"
            " (§5 Authentication: webhook signature)"
        ),
        "webhook-tampered-body": (
            "the delivered body differs from the signed bytes"
            " (§5 Authentication: webhook signature)"
        ),
        "webhook-unsigned": (
            "deliveries carry no X-Service-Signature (§5 Authentication: webhook signature)"
        ),
        "webhook-test-not-sent": (
            "POST /sandbox/webhooks/test answers 200 but delivers nothing (§6 Events)"
        ),
        "webhook-test-wrong-shape": (
            "the TEST event lacks webhookId and has test: false (§6 Events: test event)"
        ),
        "wrong-version-segment": (
            "routes and base_url use /2024-01-01 instead of /2025-10-13 (§9 Versioning)"
        ),
        "kyc-rejected-suffix-approved": (
            "an individual whose suffix must reject (e.g. 002) is approved instead"
            " (§4 Sandbox behaviours: no suffix gives an approved customer)"
        ),
        "kyc-final-status-changed": (
            "POST /verifications on an APPROVED or REJECTED customer answers 200 and moves it"
            " to PENDING (§3 Customer verification: final, response 400)"
        ),
        "verification-missing-field-omitted": (
            "RESOLVE_ERRORS leaves out the error for a missing birthDate"
            " (§4 Sandbox behaviours: complete packet; §2 Verification errors)"
        ),
        "kyc-event-unsigned": (
            "CUSTOMER.* deliveries carry no X-Service-Signature; TEST events stay signed"
            " (§5 Authentication: webhook signature)"
        ),
        "kyc-events-out-of-order": (
            "a decision event's timestamp is earlier than its _PENDING event's"
            " (§3 Customer verification: PENDING, then the decision)"
        ),
        "rename-rederives-status": (
            "PATCH of fullName re-applies the suffix rules to a final customer"
            " (§3 Customer verification: renaming does not re-derive the status)"
        ),
        "consent-replaces-other-types": (
            "recording one agreement type drops the acceptances of the other types"
            " (§4 Customers and verification: other types left untouched)"
        ),
        "consents-both-accepted": (
            "a request with both endUserTermsConsent and agreementConsents is accepted"
            " (§2 Customer, §7 Errors: rejected)"
        ),
        "contact-not-required-accepted": (
            "verify-email/verify-phone for a channel the provider does not require answers 200"
            " (§4 Customers and verification, §7 Errors: 409)"
        ),
        "kyc-link-ignores-contact": (
            "a KYC link is issued while a contact channel is still PENDING"
            " (§3 Contact verification: 409)"
        ),
        "kyc-link-reused": (
            "every kyc-link call returns the customer's first kycUrl"
            " (§4 Customers and verification: each call returns a fresh link)"
        ),
        "document-any-type": (
            "uploads of any file type (e.g. text/plain) are accepted"
            " (§2 Document, §8 Limits: PDF, JPEG or PNG)"
        ),
        "document-quality-unchecked": (
            "photos under 320 pixels a side are accepted instead of 422 DOCUMENT_REJECTED"
            " (§4 POST /documents, §7 Errors)"
        ),
        "tax-id-unchecked": (
            "businessInfo.taxId is not validated against businessInfo.country"
            " (§2 Customer: taxId validated against country)"
        ),
        "regulated-suffix-ignored": (
            "on regulated or skip-paperwork platforms individuals stay UNVERIFIED at creation"
            " (§4 Sandbox behaviours: the suffix resolves at creation)"
        ),
        "business-owner-rule-off": (
            "a business packet without any beneficial owner counts as complete"
            " (§4 Sandbox behaviours, §8 Limits: beneficial owners declared)"
        ),
        "execute-double-debit": (
            "a second execute of an executed quote answers 200 and debits the source again"
            " (§3 Quote and transaction: execute moves a PENDING quote; DESIGN: debit once)"
        ),
        "fee-on-receiving-side": (
            "the variable fee is computed on the amount received instead of the amount sent:"
            " send = net * (1 + f) (§4 Quotes and transactions, rule 3)"
        ),
        "same-currency-rate-not-one": (
            "same-currency quotes report exchangeRate 1.01 and convert with it"
            " (§2 Quote, §4 rule 1: exchangeRate equals 1)"
        ),
        "execute-after-expiry": (
            "a quote past expiresAt still executes"
            " (§3 Quote and transaction: before expiresAt; §7 Errors: QUOTE_EXPIRED)"
        ),
        "refund-event-missing": (
            "a failed payout is refunded but no OUTGOING_PAYMENT.REFUND_* event is sent"
            " (§3 Quote and transaction, §6 Events: refund events)"
        ),
        "money-leak-on-refund": (
            "the automatic refund credits back 1 unit less than was debited"
            " (§2 Transaction: a debited amount is refunded automatically)"
        ),
        "execute-not-atomic": (
            "execute checks the quote's status and debits in two DB transactions, so"
            " concurrent executes can each debit (§3 Quote and transaction; DESIGN: debit once)"
        ),
    }
)


class UnknownFaultError(ValueError):
    """A requested fault mode is not in the catalogue."""


def validate_faults(names: Iterable[str]) -> frozenset[str]:
    """Return the requested fault names as a set, or raise for the first unknown one.

    The message names the bad value and suggests the closest known name, so a typo on the
    command line is a one-line fix.
    """
    requested = frozenset(names)
    for name in sorted(requested):
        if name not in FAULTS:
            close = difflib.get_close_matches(name, FAULTS, n=1)
            hint = f"; did you mean {close[0]!r}?" if close else ""
            raise UnknownFaultError(
                f"unknown fault mode {name!r}{hint} (use --list-faults to see all)"
            )
    return requested


def describe_faults() -> str:
    """The catalogue as aligned text lines, one fault per line."""
    width = max(len(name) for name in FAULTS)
    return "\n".join(f"{name:<{width}}  {text}" for name, text in FAULTS.items())
