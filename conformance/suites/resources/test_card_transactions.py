"""§2 CardTransaction and the card record: the fields of card transactions as
``GET /transactions?cardId=`` lists them (each item is checked against the card transaction
schema by the client), the decline reason, the merchant's location, and the card's
tokenization capability.

Cards and their activity come from the adapter (card issuing and simulators are not shown).
"""

from __future__ import annotations

import pytest

from conformance.cards.flows import AUTHORIZE_HOOK, CARD_CLAUSE, CLEAR_HOOK, ISSUE_HOOK, MERCHANT
from conformance.contract import clauses
from conformance.contract.failures import check
from conformance.contract.markers import needs_adapter_hook

pytestmark = [
    pytest.mark.resource("CardTransaction"),
    pytest.mark.writes,
    pytest.mark.feature("cards"),
    needs_adapter_hook(ISSUE_HOOK),
    needs_adapter_hook(AUTHORIZE_HOOK),
]

DECLINE_REASONS = {
    "CARD_NOT_ACTIVE",
    "SPEND_LIMIT_EXCEEDED",
    "INSUFFICIENT_FUNDS",
    "NO_ELIGIBLE_FUNDING_SOURCE",
    "BLOCKED",
    "UNSUPPORTED_NETWORK",
    "OTHER",
}
FULL_CURRENCY = ("decimals", "name", "symbol")


@needs_adapter_hook(CLEAR_HOOK)
@pytest.mark.requirement("CARD-TRANSACTION-FIELDS", "CARD-TRANSACTION-STATUS-VALUES")
def test_card_transactions_carry_direction_and_full_currency_metadata(cards):
    card = cards.issue(50_000)
    purchase_id = cards.purchase(card, 1_250)
    row = cards.row(card, purchase_id)
    check(
        row.get("direction") in ("DEBIT", "CREDIT"),
        CARD_CLAUSE,
        "direction is DEBIT or CREDIT",
        observed=row.get("direction"),
        requirement="CARD-TRANSACTION-FIELDS",
    )
    check(
        row.get("status") == "SETTLED",
        CARD_CLAUSE,
        "an authorization cleared in full reads SETTLED",
        observed=row.get("status"),
        requirement="CARD-TRANSACTION-STATUS-VALUES",
    )
    for name in ("settledAmount", "refundedAmount"):
        amount = row.get(name)
        if amount is None:
            continue  # present with full metadata when present; absent is not a violation
        currency = amount.get("currency") if isinstance(amount, dict) else None
        missing = [k for k in FULL_CURRENCY if not isinstance(currency, dict) or k not in currency]
        check(
            not missing,
            CARD_CLAUSE,
            f"{name} is an amount with full currency metadata (decimals, name, symbol)",
            observed={name: amount, "missing": missing},
            requirement="CARD-TRANSACTION-FIELDS",
        )
    check(
        isinstance(row.get("settledAmount"), dict),
        CARD_CLAUSE,
        "a SETTLED card transaction carries settledAmount",
        observed=row.get("settledAmount"),
    )


@pytest.mark.requirement("CARD-DECLINED-REASON-VALUES")
def test_a_declined_authorization_names_its_reason(cards):
    card = cards.issue(1_000)
    declined_id = cards.authorize(card, 900_000)["id"]
    row = cards.row(card, declined_id)
    if row.get("status") != "DECLINED":
        pytest.skip(f"the authorization above the balance was not declined ({row.get('status')})")
    check(
        row.get("cardDeclinedReason") in DECLINE_REASONS,
        CARD_CLAUSE,
        "cardDeclinedReason is set with DECLINED, one of " + ", ".join(sorted(DECLINE_REASONS)),
        observed=row.get("cardDeclinedReason", "<absent>"),
    )


@pytest.mark.requirement("CARD-MERCHANT-CITY-STATE")
def test_the_merchant_carries_the_city_and_state_the_network_reported(cards):
    card = cards.issue(50_000)
    row = cards.row(card, cards.authorize(card, 300)["id"])
    merchant = row.get("merchant")
    shown = merchant if isinstance(merchant, dict) else {}
    check(
        (shown.get("city"), shown.get("state")) == (MERCHANT["city"], MERCHANT["state"]),
        CARD_CLAUSE,
        "merchant includes city and state when the network reports them",
        expected={"city": MERCHANT["city"], "state": MERCHANT["state"]},
        observed=merchant,
        hint="the simulated network reported this merchant through the adapter hook "
        f"{AUTHORIZE_HOOK.__name__}",
    )


@pytest.mark.requirement("CARD-CAPABILITIES-TOKENIZATION")
def test_a_card_record_states_whether_it_supports_wallet_tokenization(cards):
    card = cards.issue(1_000)
    capabilities = card.record.get("cardCapabilities")
    value = (
        capabilities.get("supportsDigitalWalletTokenization")
        if isinstance(capabilities, dict)
        else None
    )
    check(
        isinstance(value, bool),
        clauses.CARD_TRANSACTION + " — card record",
        "a card carries cardCapabilities.supportsDigitalWalletTokenization (a boolean)",
        observed=capabilities if capabilities is not None else "<no cardCapabilities>",
        hint=f"the card record as the adapter hook {ISSUE_HOOK.__name__} answered it",
    )


@pytest.mark.requirement("INTERNAL-ACCOUNT-CARD-CAPABILITIES")
def test_an_account_funding_a_card_states_its_card_capabilities(cards, profile):
    """§2 InternalAccount: card capabilities are "absent when the account cannot fund a
    card"; an account a card was just issued against can fund one, so it carries them. The
    field's name is not shown: it comes from the profile."""
    name = profile.field_names["internal_account_card_capabilities"]
    card = cards.issue(1_000)
    account = cards.funding.account(card.customer_id, card.account_id)
    check(
        account.get(name) is not None,
        clauses.INTERNAL_ACCOUNT + " (card capabilities)",
        "an internal account that funds a card carries the capabilities of a card issued "
        "with it as funding source",
        expected=f"{name}: the capabilities (present, not null)",
        observed={k: account.get(k) for k in ("id", "type", name)},
        hint="set [field_names] internal_account_card_capabilities when the field has another name",
    )
