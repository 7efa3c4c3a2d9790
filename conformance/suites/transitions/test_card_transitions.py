"""§2 CardTransaction rules: a decline before money moved is DECLINED, never EXCEPTION (and
an underfunded authorization is declined with INSUFFICIENT_FUNDS in the sandbox); a full
reversal before clearing is VOIDED; a merchant return opens its own CREDIT row while the
purchase stays SETTLED. Card activity comes from the adapter; every state is read back
through ``GET /transactions?cardId=``."""

from __future__ import annotations

import pytest

from conformance.cards.flows import (
    AUTHORIZE_HOOK,
    CARD_CLAUSE,
    CLEAR_HOOK,
    EXPIRE_HOOK,
    ISSUE_HOOK,
    RETURN_HOOK,
    REVERSE_HOOK,
)
from conformance.contract.failures import check
from conformance.contract.markers import needs_adapter_hook, skip_unless_sandbox

pytestmark = [
    pytest.mark.resource("CardTransaction"),
    pytest.mark.writes,
    pytest.mark.feature("cards"),
    needs_adapter_hook(ISSUE_HOOK),
    needs_adapter_hook(AUTHORIZE_HOOK),
]


@pytest.mark.requirement("CARD-DECLINE-NEVER-EXCEPTION", "CARD-DECLINED-INSUFFICIENT-FUNDS-SANDBOX")
def test_an_underfunded_authorization_is_declined_never_exception(cards, profile):
    skip_unless_sandbox(profile, "declining underfunded authorizations")
    card = cards.issue(1_000)
    row = cards.row(card, cards.authorize(card, 250_000)["id"])
    check(
        row.get("status") != "EXCEPTION",
        CARD_CLAUSE,
        "an authorization declined before money moved is DECLINED, never EXCEPTION "
        "(EXCEPTION is for settlement anomalies)",
        observed={"status": row.get("status"), "cardDeclinedReason": row.get("cardDeclinedReason")},
        requirement="CARD-DECLINE-NEVER-EXCEPTION",
    )
    check(
        (row.get("status"), row.get("cardDeclinedReason")) == ("DECLINED", "INSUFFICIENT_FUNDS"),
        CARD_CLAUSE,
        "in the sandbox an authorization above the funding balance is DECLINED with "
        "cardDeclinedReason INSUFFICIENT_FUNDS",
        observed={"status": row.get("status"), "cardDeclinedReason": row.get("cardDeclinedReason")},
        requirement="CARD-DECLINED-INSUFFICIENT-FUNDS-SANDBOX",
    )


def _voided_after(cards, end, how):
    card = cards.issue(50_000)
    auth_id = cards.authorize(card, 2_000)["id"]
    before = cards.row(card, auth_id)
    if before.get("status") in ("DECLINED", "EXCEPTION", "SETTLED", "VOIDED"):
        pytest.skip(f"the authorization was not left approved ({before.get('status')})")
    end(card, auth_id)
    after = cards.row(card, auth_id, settle=before.get("status"))
    check(
        after.get("status") == "VOIDED",
        CARD_CLAUSE,
        f"an approved authorization {how} before clearing is VOIDED",
        expected="VOIDED",
        observed={"before": before.get("status"), "after": after.get("status")},
    )


@needs_adapter_hook(REVERSE_HOOK)
@pytest.mark.requirement("CARD-VOIDED-ON-REVERSAL")
def test_a_fully_reversed_authorization_is_voided(cards):
    _voided_after(cards, cards.reverse, "fully reversed")


@needs_adapter_hook(EXPIRE_HOOK)
@pytest.mark.requirement("CARD-VOIDED-ON-REVERSAL")
def test_an_authorization_expired_before_clearing_is_voided(cards):
    _voided_after(cards, cards.expire, "that expired")


@needs_adapter_hook(CLEAR_HOOK)
@needs_adapter_hook(RETURN_HOOK)
@pytest.mark.requirement("CARD-RETURN-OWN-ROW")
def test_a_merchant_return_opens_its_own_credit_row(cards):
    card = cards.issue(50_000)
    purchase_id = cards.purchase(card, 4_000)
    cards.merchant_return(card, purchase_id, 1_500)
    rows = cards.rows(card.id)
    refunds = [r for r in rows if r.get("originalTransactionId") == purchase_id]
    check(
        len(refunds) == 1 and refunds[0].get("id") != purchase_id,
        CARD_CLAUSE,
        "a merchant return against a purchase opens its own row, originalTransactionId naming "
        "the purchase",
        observed=[
            {k: r.get(k) for k in ("id", "status", "direction", "originalTransactionId")}
            for r in rows
        ],
    )
    refund = refunds[0]
    settled = refund.get("settledAmount")
    check(
        refund.get("direction") == "CREDIT"
        and isinstance(settled, dict)
        and settled.get("amount") == 1_500,
        CARD_CLAUSE,
        "the return's row has direction CREDIT and the credited value in settledAmount",
        expected={"direction": "CREDIT", "settledAmount.amount": 1_500},
        observed={"direction": refund.get("direction"), "settledAmount": settled},
    )
    purchase: dict[str, object] = next((r for r in rows if r.get("id") == purchase_id), {})
    check(
        purchase.get("status") == "SETTLED",
        CARD_CLAUSE,
        "the purchase stays SETTLED after a merchant return",
        observed=purchase.get("status"),
    )
