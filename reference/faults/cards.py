"""Fault modes of the cards area (reference/cards/)."""

from __future__ import annotations

from typing import Any

from reference.cards import issuing, simulators, tokenize
from reference.cards import transactions as ct
from reference.faults.registry import fault
from reference.kernel.services import Services

# The status a merchant return sets on the purchase, and whose event it fires.
REFUNDED = "REFUNDED"


@fault(
    "card-decline-as-exception",
    at=simulators.DECLINED_STATUS,
    clause="§2 CardTransaction: a decline before money moved is DECLINED, never EXCEPTION",
    part="transitions",
    caught_by=("test_an_underfunded_authorization_is_declined_never_exception",),
)
def decline_as_exception(status: str, *, reason: str) -> str:
    """an underfunded card authorization is stored EXCEPTION instead of DECLINED"""
    return ct.EXCEPTION


@fault(
    "card-declined-reason-missing",
    at=ct.RENDERED,
    clause="§2 CardTransaction: cardDeclinedReason is set with DECLINED",
    part="resources",
    caught_by=("test_a_declined_authorization_names_its_reason",),
)
def no_declined_reason(body: dict[str, Any], *, row: ct.CardTransaction) -> dict[str, Any]:
    """a DECLINED card transaction carries no cardDeclinedReason"""
    return {key: value for key, value in body.items() if key != "cardDeclinedReason"}


@fault(
    "card-reversal-not-voided",
    at=simulators.REVERSED_STATUS,
    clause="§2 CardTransaction: fully reversed before clearing is VOIDED",
    part="transitions",
    caught_by=("test_a_fully_reversed_authorization_is_voided",),
)
def reversal_keeps_status(status: str, *, row: ct.CardTransaction) -> str:
    """a fully reversed authorization stays AUTHORIZED"""
    return row.status


@fault(
    "card-expiry-not-voided",
    at=simulators.EXPIRED_STATUS,
    clause="§2 CardTransaction: expired before clearing is VOIDED",
    part="transitions",
    caught_by=("test_an_authorization_expired_before_clearing_is_voided",),
)
def expiry_as_exception(status: str, *, row: ct.CardTransaction) -> str:
    """an authorization that expires before clearing becomes EXCEPTION"""
    return ct.EXCEPTION


@fault(
    "card-return-merged",
    at=simulators.RETURN_ROW,
    clause="§2 CardTransaction: a return opens its own CREDIT row",
    part="transitions",
    caught_by=("test_a_merchant_return_opens_its_own_credit_row",),
)
def return_merged_into_purchase(
    refund: ct.CardTransaction | None,
    *,
    services: Services,
    purchase: ct.CardTransaction,
    refunded: int,
) -> None:
    """a merchant return is merged into the purchase (its refundedAmount) and opens no row"""
    ct.update(services, purchase, refunded=refunded)
    return None


@fault(
    "card-refunded-status",
    at=simulators.RETURNED_PURCHASE_STATUS,
    clause="§2 CardTransaction and §9.3: REFUNDED does not exist",
    part="versioning",
    caught_by=("test_a_merchant_return_shows_no_refunded_status_or_event",),
)
def purchase_refunded(status: str, *, purchase: ct.CardTransaction) -> str:
    """a merchant return sets the purchase to REFUNDED and fires CARD_TRANSACTION.REFUNDED"""
    return REFUNDED


@fault(
    "card-settled-event-missing",
    at=ct.EVENT_DATA,
    clause="§6 Events: every card transaction state transition",
    part="webhooks",
    caught_by=("test_every_card_transition_fires_an_event_carrying_the_card_transaction",),
)
def no_settled_event(
    data: dict[str, Any] | None, *, row: ct.CardTransaction
) -> dict[str, Any] | None:
    """a card transaction that settles fires no CARD_TRANSACTION.SETTLED"""
    return None if row.status == ct.SETTLED else data


@fault(
    "card-event-partial-data",
    at=ct.EVENT_DATA,
    clause="§6 Events: carrying the full card transaction",
    part="webhooks",
    caught_by=("test_every_card_transition_fires_an_event_carrying_the_card_transaction",),
)
def id_and_status_only(
    data: dict[str, Any] | None, *, row: ct.CardTransaction
) -> dict[str, Any] | None:
    """CARD_TRANSACTION.* events carry only the transaction's id and status"""
    return None if data is None else {"id": row.id, "status": row.status}


@fault(
    "card-amount-metadata-missing",
    at=ct.RENDERED,
    clause="§2 CardTransaction: full currency metadata",
    part="resources",
    caught_by=("test_card_transactions_carry_direction_and_full_currency_metadata",),
)
def bare_amount_currency(body: dict[str, Any], *, row: ct.CardTransaction) -> dict[str, Any]:
    """card transaction amounts carry currency code and decimals only"""
    amounts = ("authorizedAmount", "settledAmount", "refundedAmount")
    return {key: (_bare(value) if key in amounts else value) for key, value in body.items()}


def _bare(money: dict[str, Any]) -> dict[str, Any]:
    currency = money["currency"]
    return {**money, "currency": {"code": currency["code"], "decimals": currency["decimals"]}}


@fault(
    "card-merchant-location-dropped",
    at=ct.RENDERED,
    clause="§2 CardTransaction: merchant includes city and state",
    part="resources",
    caught_by=("test_the_merchant_carries_the_city_and_state_the_network_reported",),
)
def merchant_without_location(body: dict[str, Any], *, row: ct.CardTransaction) -> dict[str, Any]:
    """a card transaction's merchant omits the city and state the network reported"""
    merchant = body.get("merchant")
    if merchant is None:
        return body
    located = ("city", "state")
    return {**body, "merchant": {k: v for k, v in merchant.items() if k not in located}}


@fault(
    "card-capabilities-missing",
    at=issuing.RENDERED,
    clause="§2 Card record",
    part="resources",
    caught_by=("test_a_card_record_states_whether_it_supports_wallet_tokenization",),
)
def no_capabilities(body: dict[str, Any], *, card: issuing.Card) -> dict[str, Any]:
    """a card record carries no cardCapabilities"""
    return {key: value for key, value in body.items() if key != "cardCapabilities"}


@fault(
    "card-tokenize-plaintext",
    at=tokenize.PAYLOAD,
    clause="§4: encrypted to the wallet provider's keys",
    part="endpoints",
    caught_by=("test_tokenize_answers_a_payload_encrypted_to_the_wallet_provider",),
)
def base64_not_encrypted(payload: str, *, plaintext: bytes) -> str:
    """POST /cards/{id}/tokenize answers the provisioning data base64-encoded, not encrypted"""
    return tokenize.b64url(plaintext)


@fault(
    "return-reversal-ignored",
    at=simulators.RETURN_REVERSED,
    clause="§4: simulates the reversal; §6: every card transaction state transition",
    part="endpoints",
    caught_by=("test_return_reversal_simulates_the_reversal_of_a_posted_return",),
)
def return_reversal_does_nothing(reversed_: bool, *, refund: ct.CardTransaction) -> bool:
    """POST /sandbox/cards/{id}/simulate/return_reversal answers 200 and changes nothing"""
    return False
