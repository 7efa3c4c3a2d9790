"""Fault modes of quotes, pricing, limits, funding and transfers (reference/payments/)."""

from __future__ import annotations

import math
from collections.abc import Mapping
from decimal import Decimal
from fractions import Fraction
from typing import Any

from reference.accounts import external_accounts
from reference.faults.registry import fault
from reference.kernel import routing
from reference.kernel.currencies import CURRENCIES, Currency
from reference.kernel.errors import ApiError, FieldError
from reference.payments import (
    holds,
    incoming,
    jit,
    limits,
    onchain,
    payout_scenarios,
    pricing,
    quote_validation,
    transactions_api,
    transfers_legacy,
    uma,
    uma_incoming,
)
from reference.payments.pricing import Price
from reference.payments.transaction_store import Transaction

# What the `same-currency-rate-not-one` fault reports and converts with.
WRONG_SAME_CURRENCY_RATE = Decimal("1.01")


def _fee_on_received(
    price: Price, *, side: str, amount: int, sending: Currency, receiving: Currency
) -> Price:
    """``price`` with the variable fee taken on the amount converted, not the amount sent:
    ``S = net * (1 + f) + fixed + platform``."""
    fees = price.fees
    k = pricing.smallest_unit_rate(price.exchange_rate, sending, receiving)
    f = Fraction(fees.variable_rate)
    if side == pricing.SENDING:
        total_sending = amount
        platform = fees.platform_fee(total_sending)
        base = total_sending - fees.fixed - platform
        variable = base - math.floor(Fraction(base) / (1 + f))
        net = total_sending - variable - fees.fixed - platform
        total_receiving = math.floor(net * k)
    else:
        total_receiving = amount
        net = math.ceil(amount / k)
        platform = fees.platform_fee(net)
        variable = pricing.round_half_up(net * f)
        total_sending = net + fees.fixed + platform + variable
    return Price(price.exchange_rate, total_sending, total_receiving, variable, fees, platform)


@fault(
    "fee-on-receiving-side",
    at=pricing.PRICE,
    clause="§4 Quotes and transactions, rule 3",
    part="endpoints",
    caught_by=("test_generated_quotes_follow_the_fee_and_rate_arithmetic",),
)
def fee_on_the_amount_received(
    price: Price,
    *,
    side: str,
    amount: int,
    sending: Currency,
    receiving: Currency,
    pulled: bool,
) -> Price:
    """the variable fee is computed on the amount received instead of the amount sent:
    send = net * (1 + f)"""
    return _fee_on_received(price, side=side, amount=amount, sending=sending, receiving=receiving)


@fault(
    "pull-fee-on-receiving-side",
    at=pricing.PRICE,
    clause="§4 Quotes and transactions, rule 3",
    part="endpoints",
    caught_by=("test_generated_quotes_follow_the_fee_and_rate_arithmetic",),
)
def pulled_fee_on_the_amount_converted(
    price: Price,
    *,
    side: str,
    amount: int,
    sending: Currency,
    receiving: Currency,
    pulled: bool,
) -> Price:
    """quotes from a pulled external source compute the variable fee on the amount converted
    instead of the amount sent"""
    if not pulled:
        return price
    return _fee_on_received(price, side=side, amount=amount, sending=sending, receiving=receiving)


@fault(
    "same-currency-rate-not-one",
    at=pricing.EXCHANGE_RATE,
    clause="§2 Quote, §4 rule 1: exchangeRate equals 1",
    part="endpoints",
    caught_by=("test_generated_quotes_follow_the_fee_and_rate_arithmetic",),
)
def same_currency_rate_off_one(rate: Decimal, *, sending: str, receiving: str) -> Decimal:
    """same-currency quotes report exchangeRate 1.01 and convert with it"""
    return WRONG_SAME_CURRENCY_RATE if sending == receiving else rate


@fault(
    "incoming-refund-event-missing",
    at=incoming.REFUND_EVENT,
    clause="§3 Quote and transaction, §6 Events",
    part="transitions",
    caught_by=("test_a_returned_incoming_deposit_is_refunded_with_its_events",),
)
def no_refund_events(event_type: str | None, *, transaction: Transaction) -> str | None:
    """a returned incoming deposit is refunded without INCOMING_PAYMENT.REFUND_* events"""
    return None


@fault(
    "slow-payment-never-settles",
    at=payout_scenarios.DUE_SLOW_PAYMENTS,
    clause="§4 Sandbox behaviours: only timeout scenarios, 005, do not settle",
    part="transitions",
    caught_by=("test_a_slow_payment_to_a_003_identifier_still_settles",),
)
def no_slow_payment_ever_due(rows: list[Any]) -> list[Any]:
    """a payout to an identifier ending in 003 stays PROCESSING for ever"""
    return []


@fault(
    "ownership-pending-unusable",
    at=quote_validation.OWNERSHIP_REFUSAL,
    clause="§3 External account: usable below regulatory thresholds",
    part="transitions",
    caught_by=("test_an_account_pending_ownership_verification_receives_a_small_payout",),
)
def refuse_pending_ownership_at_any_amount(
    refusal: str | None, *, destination: Any, receiving: str, amount: int
) -> str | None:
    """an external account PENDING_OWNERSHIP_VERIFICATION is refused as a destination at any
    amount"""
    threshold = external_accounts.THRESHOLD_MAJOR_UNITS * 10 ** CURRENCIES[receiving].decimals
    return external_accounts.over_threshold(destination, receiving, max(amount, threshold))


@fault(
    "size-limit-unenforced",
    at=limits.SIZE_REFUSAL,
    clause="§8 Limits, §7 Errors: 400 TRANSACTION_SIZE_LIMIT_EXCEEDED",
    part="limits",
    caught_by=("test_a_transaction_above_the_size_limit_is_refused_with_400",),
)
def no_size_limit(refusal: ApiError | None, *, currency: str, total_sending: int) -> None:
    """quotes above the transaction size limit are accepted and executed"""
    return None


@fault(
    "daily-limit-unenforced",
    at=limits.DAILY_REFUSAL,
    clause="§8 Limits, §7 Errors: 429 DAILY_VOLUME_LIMIT_EXCEEDED",
    part="limits",
    caught_by=("test_volume_above_the_daily_limit_is_refused_with_429",),
)
def no_daily_limit(
    refusal: ApiError | None, *, platform_id: str, customer_id: str, currency: str, amount: int
) -> None:
    """a customer's volume past the daily limit is quoted and executed"""
    return None


@fault(
    "pending-reason-missing",
    at=holds.PENDING_REASON,
    clause="§2 Transaction: pendingReason states why it is held",
    part="resources",
    caught_by=("test_a_transaction_held_for_compliance_review_states_why",),
)
def no_pending_reason(reason: str | None, *, transaction: Transaction) -> None:
    """a payout held for compliance review carries no pendingReason"""
    return None


@fault(
    "sandbox-send-any-currency",
    at=jit.PAYMENT_CURRENCY,
    clause="§4 sandbox: currencyCode must equal the funding-source currency",
    part="endpoints",
    caught_by=("test_a_currency_other_than_the_funding_source_s_is_refused",),
)
def any_payment_currency(expected: str, *, quote: Any, paid: str) -> str:
    """POST /sandbox/send accepts a currencyCode other than the funding source's"""
    return paid


@fault(
    "jit-reference-ignored",
    at=jit.REFERENCE_MATCHES,
    clause="§4 Quotes rule 2: the exact reference triggers execution",
    part="transitions",
    caught_by=("test_only_a_payment_with_the_exact_reference_executes_the_quote",),
)
def any_reference_matches(matches: bool, *, quote: Any, reference: str) -> bool:
    """a deposit into a just-in-time quote's instructions with a wrong reference executes it"""
    return True


@fault(
    "onchain-hash-missing",
    at=onchain.WALLET_RECORDS,
    clause="§2 Transaction: onChainTransaction once an on-chain transfer settles",
    part="resources",
    caught_by=("test_a_settled_wallet_payout_carries_its_on_chain_transaction",),
)
def no_wallet_records(records: Mapping[str, Any], *, quote: Any, account: Any) -> dict[str, Any]:
    """a settled wallet payout carries no onChainTransaction nor transactionHash"""
    return {}


@fault(
    "uma-scenario-ignored",
    at=uma.SCENARIO,
    clause="§4 Sandbox behaviours: digits at the end of the username part",
    part="transitions",
    caught_by=("test_digits_at_the_end_of_the_username_part_select_the_scenario",),
)
def scenario_read_at_the_domain(digits: str, *, address: str) -> str:
    """scenario digits at the end of a UMA address's username part are ignored"""
    return address[-3:]  # the end of the domain: no scenario applies


@fault(
    "uma-incoming-no-transaction",
    at=uma_incoming.STORED_TRANSACTION,
    clause="§4 sandbox: an incoming UMA payment creates an incoming transaction",
    part="transitions",
    caught_by=("test_an_incoming_uma_payment_creates_an_incoming_transaction",),
)
def no_incoming_uma_transaction(
    transaction: Transaction | None, *, account: Any
) -> Transaction | None:
    """an incoming UMA payment credits the account but creates no transaction"""
    return None


@fault(
    "uma-limits-ignored",
    at=uma.AMOUNT_BOUNDS,
    clause="§8 Limits: UMA amounts within supportedCurrencies minAmount/maxAmount",
    part="limits",
    caught_by=("test_uma_amounts_outside_the_currency_bounds_are_refused",),
)
def unbounded_uma_amounts(bounds: tuple[Any, Any], *, currency: str) -> tuple[Any, Any]:
    """a UMA quote above its currency's maxAmount is accepted"""
    return None, None


@fault(
    "transfer-out-gone",
    at=transfers_legacy.TRANSFER_REFUSAL,
    clause="§9.2: keeps working unchanged",
    part="versioning",
    caught_by=("test_transfer_out_and_transfer_in_still_move_money",),
)
def transfer_out_not_found(refusal: ApiError | None, *, direction: str) -> ApiError | None:
    """the deprecated POST /transfer-out answers 404"""
    if direction == transfers_legacy.OUT:
        return ApiError(404, "NOT_FOUND", "no route POST /transfer-out")
    return refusal


@fault(
    "card-id-filter-prefix-only",
    at=transactions_api.CARD_FILTER,
    clause="§4 Quotes and transactions: a Card: id or the uuid",
    part="endpoints",
    caught_by=("test_card_transactions_are_listed_by_card_id_or_bare_uuid",),
)
def card_filter_as_sent(card_id: str, *, requested: str) -> str:
    """GET /transactions?cardId= with the bare uuid lists nothing"""
    return requested


@fault(
    "quote-payment-rail-ignored",
    at=routing.REQUEST_BODY,
    clause="§4 Quotes and transactions: an ACCOUNT destination with optional paymentRail",
    part="endpoints",
    caught_by=("test_an_optional_field_sent_is_refused_as_stated_or_kept",),
)
def payment_rail_ignored(body: dict[str, Any], *, method: str, path: str) -> dict[str, Any]:
    """POST /quotes ignores the destination's paymentRail: every quote takes the default rail"""
    destination = body.get("destination")
    if (method, path) != ("POST", "/quotes") or not isinstance(destination, Mapping):
        return body
    kept = {k: v for k, v in destination.items() if k != "paymentRail"}
    return {**body, "destination": kept}


@fault(
    "quote-purpose-refused-unnamed",
    at=routing.REQUEST_BODY,
    clause="§4 Quotes and transactions: optional purposeOfPayment; §7 Errors: a refusal names it",
    part="endpoints",
    caught_by=("test_an_optional_field_sent_is_refused_as_stated_or_kept",),
)
def purpose_refused_unnamed(body: dict[str, Any], *, method: str, path: str) -> dict[str, Any]:
    """POST /quotes with a purposeOfPayment is refused with 400 INVALID_INPUT blaming the
    destination instead of naming purposeOfPayment"""
    if (method, path) == ("POST", "/quotes") and body.get("purposeOfPayment") is not None:
        blamed = FieldError("destination", "UNSUPPORTED", "cannot receive this payment")
        raise ApiError(
            400, "INVALID_INPUT", "invalid request", details={"errors": [blamed.as_json()]}
        )
    return body


@fault(
    "transactions-status-filter-ignored",
    at=transactions_api.STATUS_FILTER,
    clause="§4 Quotes and transactions: GET /transactions filters include status",
    part="endpoints",
    caught_by=("test_every_transaction_listed_matches_the_filters",),
)
def status_filter_ignored(status: str | None, *, requested: str | None) -> str | None:
    """GET /transactions?status= lists the payment transactions of every status"""
    return None


@fault(
    "quote-description-ignored",
    at=routing.REQUEST_BODY,
    clause="§4 Quotes and transactions: description (optional); §2 Quote: description",
    part="endpoints",
    caught_by=("test_a_valid_quote_request_answers_201_with_a_pending_quote",),
)
def description_ignored(body: dict[str, Any], *, method: str, path: str) -> dict[str, Any]:
    """POST /quotes accepts a description but keeps none"""
    if (method, path) != ("POST", "/quotes"):
        return body
    return {k: v for k, v in body.items() if k != "description"}
