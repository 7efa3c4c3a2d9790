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
        # rule-based accounts, ownership verification, payout scenarios, incoming payments
        "rule-based-idempotency-ignored": (
            "a repeated POST /internal-accounts with the same Idempotency-Key mints another"
            " account (§4 Accounts: 200 with the first account)"
        ),
        "rule-based-conflict-accepted": (
            "an Idempotency-Key reused for a different account answers 201 with a new account"
            " (§4 Accounts, §7 Errors: 409)"
        ),
        "rule-based-no-sweep": (
            "funding a rule-based account keeps the money there instead of sweeping it"
            " (§2 InternalAccount RULE_BASED, §4 sandbox fund: triggers the sweep)"
        ),
        "rule-based-business-allowed": (
            "a business customer gets a rule-based account (§4 Accounts, §8 Limits: individuals"
            " only)"
        ),
        "rule-based-any-currency": (
            "a rule-based account in EUR is created (§2 InternalAccount, §8 Limits: USD only)"
        ),
        "rule-based-feature-ignored": (
            "a platform without the rule-based feature creates rule-based accounts"
            " (§4 Accounts: the feature must be enabled for the platform)"
        ),
        "ownership-event-missing": (
            "ownership verification changes an external account's status without firing"
            " EXTERNAL_ACCOUNT.STATUS_UPDATED (§3 External account, §6 Events)"
        ),
        "ownership-failed-becomes-active": (
            "a failed ownership-verification attempt makes the external account ACTIVE"
            " (§3 External account: UNVERIFIED on a failed attempt)"
        ),
        "ownership-event-stale-status": (
            "EXTERNAL_ACCOUNT.STATUS_UPDATED carries the account in its status before the change"
            " (§3 External account: each change fires EXTERNAL_ACCOUNT.STATUS_UPDATED)"
        ),
        "incoming-refund-event-missing": (
            "a returned incoming deposit is refunded without INCOMING_PAYMENT.REFUND_* events"
            " (§3 Quote and transaction, §6 Events)"
        ),
        "slow-payment-never-settles": (
            "a payout to an identifier ending in 003 stays PROCESSING for ever"
            " (§4 Sandbox behaviours: only timeout scenarios, 005, do not settle)"
        ),
        "rule-based-lengths-unchecked": (
            "POST /internal-accounts accepts an Idempotency-Key and a label over 255 characters"
            " (§8 Limits: up to 255)"
        ),
        "ownership-pending-unusable": (
            "an external account PENDING_OWNERSHIP_VERIFICATION is refused as a destination at"
            " any amount (§3 External account: usable below regulatory thresholds)"
        ),
        "size-limit-unenforced": (
            "quotes above the transaction size limit are accepted and executed"
            " (§8 Limits, §7 Errors: 400 TRANSACTION_SIZE_LIMIT_EXCEEDED)"
        ),
        "daily-limit-unenforced": (
            "a customer's volume past the daily limit is quoted and executed"
            " (§8 Limits, §7 Errors: 429 DAILY_VOLUME_LIMIT_EXCEEDED)"
        ),
        "rate-refusal-debits": (
            "an execute whose quoted rate is refused answers QUOTE_RATE_UNAVAILABLE but debits"
            " the source (§3 Quote and transaction: nothing is exchanged)"
        ),
        "quote-amount-as-string": (
            "quotes render totalSendingAmount as a string (§2 Quote: integers)"
        ),
        "transaction-id-unprefixed": (
            "transactions render id without the Transaction: prefix (§2 Transaction: id)"
        ),
        "internal-account-balance-missing": (
            "internal accounts omit the available balance"
            " (§2 InternalAccount: available and total balance)"
        ),
        "external-account-bad-status": (
            "external accounts render status VERIFIED_ACTIVE, outside the three values"
            " (§2 ExternalAccount: status)"
        ),
        "pending-reason-missing": (
            "a payout held for compliance review carries no pendingReason"
            " (§2 Transaction: pendingReason states why it is held)"
        ),
        "sca-challenge-skipped": (
            "an SCA customer's execute releases the transfer at once, without a challenge"
            " (§3 Quote and transaction: PENDING_AUTHORIZATION with scaChallenge)"
        ),
        "sca-reexecute-accepted": (
            "execute again on a quote awaiting authorization releases the transfer"
            " (§3 Quote and transaction, §7 Errors: 409)"
        ),
        "sca-wrong-code-accepted": (
            "any code authorizes an SCA challenge (§3 Quote and transaction: valid proof)"
        ),
        "sca-session-refusal-403": (
            "quote authorization without an SCA session is refused with 403 FORBIDDEN"
            " (§4 Quotes and transactions, §7 Errors: 409 SCA_SESSION_REQUIRED)"
        ),
        "sca-expiry-wrong-reason": (
            "a transfer whose SCA challenge expired fails with QUOTE_EXECUTION_FAILED"
            " (§2 Transaction: SCA_NOT_COMPLETED)"
        ),
        "sca-non-sca-endpoint-200": (
            "SCA endpoints answer 200 for customers outside SCA (§5 Authentication: 409)"
        ),
        "sca-challenge-everyone": (
            "every customer's EUR or USDC execute is challenged, EU or not"
            " (§5 Authentication: other customers never see a challenge)"
        ),
        "sca-session-short": ("SCA logins open 30-day sessions (§8 Limits: SCA session 180 days)"),
        "sca-jit-instructions-shown": (
            "a just-in-time quote awaiting SCA authorization shows its paymentInstructions"
            " (§2 Quote: withheld until the SCA challenge is satisfied)"
        ),
        "sca-non-sca-authorize-executes": (
            "quote authorization for a customer outside SCA releases a PENDING quote (200);"
            " on an executed quote it still answers 409 (§5 Authentication: SCA endpoints"
            " return 409 for other customers)"
        ),
        # just-in-time funding, pull sources, UMA, on-chain transfers, deprecated transfers
        "jit-execute-starts-transfer": (
            "execute on a just-in-time quote answers 200 PROCESSING and starts its"
            " transaction (PROCESSING, event), the quote read back still PENDING"
            " (§4 Quotes rule 2: never executed with the execute endpoint)"
        ),
        "jit-instructions-missing-non-usd": (
            "a just-in-time quote funded in a currency other than USD is answered with an"
            " empty paymentInstructions (§2 Quote: present for just-in-time funding)"
        ),
        "completed-failure-reason": (
            "a transaction that completes keeps a failureReason (PAYOUT_RETURNED) in every"
            " read path (§2 Transaction: failureReason is set with FAILED)"
        ),
        "card-status-filter-card-statuses": (
            "GET /transactions with type=CARD and a card status (SETTLED, DECLINED, ...) answers"
            " 200 with a list; payment statuses still answer 400 (§4, §7: status combined with"
            " type=CARD returns 400)"
        ),
        "jit-quote-executable": (
            "POST /quotes/{quoteId}/execute executes a just-in-time quote"
            " (§4 Quotes rule 2: never executed with the execute endpoint)"
        ),
        "jit-immediate-execute-accepted": (
            "POST /quotes with immediatelyExecute and a REALTIME_FUNDING source executes it"
            " (§4 Quotes request table: only for internal or direct-pull sources)"
        ),
        "sandbox-send-any-currency": (
            "POST /sandbox/send accepts a currencyCode other than the funding source's"
            " (§4 sandbox: currencyCode must equal the funding-source currency)"
        ),
        "jit-reference-ignored": (
            "a deposit into a just-in-time quote's instructions with a wrong reference executes"
            " it (§4 Quotes rule 2: the exact reference triggers execution)"
        ),
        "onchain-hash-missing": (
            "a settled wallet payout carries no onChainTransaction nor transactionHash"
            " (§2 Transaction: onChainTransaction once an on-chain transfer settles)"
        ),
        "uma-scenario-ignored": (
            "scenario digits at the end of a UMA address's username part are ignored"
            " (§4 Sandbox behaviours: digits at the end of the username part)"
        ),
        "pull-source-scenario-ignored": (
            "a pull source's identifier suffix (005, 003, 099) is ignored: the pull settles"
            " at once (§4 Sandbox behaviours: whenever the account is a pull source)"
        ),
        "pull-fee-on-receiving-side": (
            "quotes from a pulled external source compute the variable fee on the amount"
            " converted instead of the amount sent (§4 Quotes and transactions, rule 3)"
        ),
        "uma-incoming-no-transaction": (
            "an incoming UMA payment credits the account but creates no transaction"
            " (§4 sandbox: an incoming UMA payment creates an incoming transaction)"
        ),
        "uma-limits-ignored": (
            "a UMA quote above its currency's maxAmount is accepted"
            " (§8 Limits: UMA amounts within supportedCurrencies minAmount/maxAmount)"
        ),
        "transfer-out-gone": (
            "the deprecated POST /transfer-out answers 404 (§9.2: keeps working unchanged)"
        ),
        # internal-account states
        "frozen-account-sends": (
            "a FROZEN internal account is quoted and executed as a source"
            " (§3 Internal account: FROZEN accounts cannot send)"
        ),
        "closed-account-receives": (
            "a CLOSED internal account is credited by funding and transfers"
            " (§3 Internal account: CLOSED accounts cannot receive)"
        ),
        "provisioning-failure-active": (
            "an account whose provisioning fails becomes ACTIVE instead of FAILED"
            " (§3 Internal account: PENDING to FAILED)"
        ),
        # cards
        "card-decline-as-exception": (
            "an underfunded card authorization is stored EXCEPTION instead of DECLINED"
            " (§2 CardTransaction: a decline before money moved is DECLINED, never EXCEPTION)"
        ),
        "card-declined-reason-missing": (
            "a DECLINED card transaction carries no cardDeclinedReason"
            " (§2 CardTransaction: cardDeclinedReason is set with DECLINED)"
        ),
        "card-reversal-not-voided": (
            "a fully reversed authorization stays AUTHORIZED"
            " (§2 CardTransaction: fully reversed before clearing is VOIDED)"
        ),
        "card-expiry-not-voided": (
            "an authorization that expires before clearing becomes EXCEPTION"
            " (§2 CardTransaction: expired before clearing is VOIDED)"
        ),
        "card-return-merged": (
            "a merchant return is merged into the purchase (its refundedAmount) and opens no row"
            " (§2 CardTransaction: a return opens its own CREDIT row)"
        ),
        "card-refunded-status": (
            "a merchant return sets the purchase to REFUNDED and fires CARD_TRANSACTION.REFUNDED"
            " (§2 CardTransaction and §9.3: REFUNDED does not exist)"
        ),
        "card-settled-event-missing": (
            "a card transaction that settles fires no CARD_TRANSACTION.SETTLED"
            " (§6 Events: every card transaction state transition)"
        ),
        "card-event-partial-data": (
            "CARD_TRANSACTION.* events carry only the transaction's id and status"
            " (§6 Events: carrying the full card transaction)"
        ),
        "card-amount-metadata-missing": (
            "card transaction amounts carry currency code and decimals only"
            " (§2 CardTransaction: full currency metadata)"
        ),
        "card-merchant-location-dropped": (
            "a card transaction's merchant omits the city and state the network reported"
            " (§2 CardTransaction: merchant includes city and state)"
        ),
        "card-capabilities-missing": ("a card record carries no cardCapabilities (§2 Card record)"),
        "internal-account-card-capabilities-missing": (
            "internal accounts listed by GET /customers/internal-accounts carry no"
            " cardCapabilities, even one funding a card (§2 InternalAccount: card capabilities)"
        ),
        "card-id-filter-prefix-only": (
            "GET /transactions?cardId= with the bare uuid lists nothing"
            " (§4 Quotes and transactions: a Card: id or the uuid)"
        ),
        "card-tokenize-plaintext": (
            "POST /cards/{id}/tokenize answers the provisioning data base64-encoded, not"
            " encrypted (§4: encrypted to the wallet provider's keys)"
        ),
        "return-reversal-ignored": (
            "POST /sandbox/cards/{id}/simulate/return_reversal answers 200 and changes nothing"
            " (§4: simulates the reversal; §6: every card transaction state transition)"
        ),
        # agents
        "agent-redeem-no-access-token": (
            "redeeming a device code answers the token as `token`, without accessToken"
            " (§4: redeem returns accessToken)"
        ),
        "agent-bearer-any-customer": (
            "an agent's bearer token reads and moves other customers' records"
            " (§5 HTTP Bearer: bound to the agent's customer)"
        ),
        "agent-policy-ignored": (
            "an agent's bearer token performs operations outside its policy"
            " (§5 HTTP Bearer: subject to the agent's policy)"
        ),
        "agent-approve-ignored": (
            "approving an agent-initiated transaction answers 200 and never carries it out"
            " (§4 Quotes and transactions: POST /transactions/{id}/approve)"
        ),
        # invitations
        "invitation-claim-no-event": (
            "claiming an invitation fires no event (§6 Events: invitation claimed)"
        ),
        "invitation-claim-no-uma": (
            "a claimed invitation carries no invitee UMA address"
            " (§3 Invitation: the invitee UMA address is attached on claim)"
        ),
        "stablecoins-unauthenticated": (
            "GET /stablecoins answers without credentials, as the primary platform"
            " (§5 Authentication: Basic is the default for platform endpoints)"
        ),
        # embedded wallet authentication (§5)
        "wallet-otp-any-code": (
            "any decrypted OTP code is accepted"
            " (§5 item 5: any code but 000000 gives 401 Invalid OTP code)"
        ),
        "wallet-otp-no-hpke": (
            "an encryptedOtpBundle that cannot be opened is accepted as a valid OTP"
            " (§5 item 5: real HPKE still runs)"
        ),
        "wallet-hpke-500": (
            "a malformed encapsulated key in encryptedOtpBundle answers 500"
            " (§5 item 6, §7: failed authentication is 401)"
        ),
        "wallet-otp-uncompressed-ok": (
            "an uncompressed TEK public_key in the OTP bundle is accepted"
            " (§5 item 1: compressed, prefix 02 or 03)"
        ),
        "wallet-signature-unchecked": (
            "any Service-Wallet-Signature is accepted on a signed retry"
            " (§5 item 4: a P-256 signature over payloadToSign)"
        ),
        "wallet-request-id-unbound": (
            "a Request-Id issued for another operation or body is accepted"
            " (§5 item 4: the retry of that operation)"
        ),
        "wallet-passkey-counter-ignored": (
            "a passkey assertion whose signature counter does not increase is accepted"
            " (§5 item 2: counter)"
        ),
        "wallet-passkey-challenge-ignored": (
            "a passkey assertion over another challenge is accepted (§5 item 2: challenge)"
        ),
        "wallet-passkey-origin-ignored": (
            "a passkey assertion from another origin is accepted (§5 item 2: origin/RP)"
        ),
        "wallet-passkey-up-ignored": (
            "a passkey assertion without the user-present flag is accepted"
            " (§5 item 2: user presence)"
        ),
        "wallet-oauth-nonce-ignored": (
            "an OAuth verify token whose nonce does not bind clientPublicKey is accepted"
            " (§5 item 3: nonce)"
        ),
        "wallet-oauth-iat-unchecked": (
            "an OIDC token of any iat (old, future, missing) is accepted"
            " (§5 item 3, §8: iat within 60 s, 5 s skew)"
        ),
        "wallet-oauth-identity-unchecked": (
            "an OAuth verify token of another iss/aud/sub is accepted"
            " (§5 item 3: must match all three)"
        ),
        "wallet-oauth-alg-none": (
            "an OIDC token with alg none is accepted"
            " (§5 item 5: claims checked; the token must be a signed JWT)"
        ),
        "wallet-session-revoke-ignored": (
            "a revoked session's key still signs wallet operations"
            " (§4: DELETE /auth/sessions/{id} revokes the session)"
        ),
        "wallet-credential-revoke-ignored": (
            "a revoked credential still challenges, verifies and signs"
            " (§4: DELETE /auth/credentials/{id} revokes it)"
        ),
        "wallet-execute-unsigned": (
            "execute of a quote from an embedded wallet without signature executes"
            " (§5 item 4, §2 EMBEDDED_WALLET)"
        ),
        "wallet-export-unsigned": (
            "POST /internal-accounts/{id}/export without signature exports the wallet (§5 item 4)"
        ),
        "wallet-legacy-literal-refused": (
            "the legacy literal signatures sandbox-valid-signature and"
            " sandbox-valid-passkey-signature are refused"
            " (§5 item 5: still accepted)"
        ),
        "wallet-privacy-flag-everywhere": (
            "privateEnabled appears on every internal account in the list"
            " (§2 InternalAccount: only EMBEDDED_WALLET)"
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
