"""§6 Events — ``CARD_TRANSACTION.*``: every card transaction state transition fires an event
carrying the full card transaction (``SETTLED``, ``DECLINED``, ``VOIDED`` named), and a
refund row fires its own events. Card activity comes from the adapter."""

from __future__ import annotations

import pytest

from conformance.cards.events import EVENTS_CLAUSE, PREFIX, wait_card_event
from conformance.cards.flows import (
    AUTHORIZE_HOOK,
    CLEAR_HOOK,
    ISSUE_HOOK,
    RETURN_HOOK,
    REVERSE_HOOK,
)
from conformance.contract.failures import check
from conformance.contract.markers import needs_adapter_hook
from conformance.webhooks.event_checks import check_event_envelopes

pytestmark = [
    pytest.mark.resource("CardTransaction"),
    pytest.mark.writes,
    pytest.mark.feature("cards"),
    needs_adapter_hook(ISSUE_HOOK),
    needs_adapter_hook(AUTHORIZE_HOOK),
    needs_adapter_hook(CLEAR_HOOK),
    needs_adapter_hook(REVERSE_HOOK),
    needs_adapter_hook(RETURN_HOOK),
]

# The fields §2 CardTransaction states (those a listed transaction shows must be in events).
STATED_FIELDS = (
    "status",
    "direction",
    "settledAmount",
    "refundedAmount",
    "originalTransactionId",
    "cardDeclinedReason",
    "merchant",
)
STATEMENT = (
    "a CARD_TRANSACTION event is the envelope {id: Webhook:<uuid>, type, timestamp, data} "
    "whose data is the full card transaction"
)


@pytest.mark.requirement("WEBHOOK-CARD-TRANSACTION-EVERY-TRANSITION", "WEBHOOK-SIGNATURE")
def test_every_card_transition_fires_an_event_carrying_the_card_transaction(
    cards, resource_events, advisory, profile
):
    mark = resource_events.mark()
    card = cards.issue(20_000)
    purchase_id = cards.purchase(card, 1_200)
    declined_id = cards.authorize(card, 900_000)["id"]
    voided_id = cards.authorize(card, 300)["id"]
    cards.reverse(card, voided_id)
    cards.merchant_return(card, purchase_id, 400)
    refunds = [r for r in cards.rows(card.id) if r.get("originalTransactionId") == purchase_id]
    walks = {purchase_id: "SETTLED", declined_id: "DECLINED", voided_id: "VOIDED"}
    seen = []
    for row_id, status in walks.items():
        listed = cards.row(card, row_id)
        if listed.get("status") != status:
            continue  # the state rules are judged in resources and transitions
        events = wait_card_event(
            resource_events,
            row_id,
            after=mark,
            event_type=PREFIX + status,
            why=f"a card transaction that becomes {status}",
        )
        seen += events
        named = [e for e in events if e.event_type == PREFIX + status]
        data = named[0].json.get("data") if named and isinstance(named[0].json, dict) else None
        check(
            isinstance(data, dict) and data.get("status") == status,
            EVENTS_CLAUSE,
            f"{PREFIX}{status} carries the card transaction in its new state",
            expected={"data.status": status},
            observed=data.get("status") if isinstance(data, dict) else data,
            hint=named[0].summary() if named else None,
            requirement="WEBHOOK-CARD-TRANSACTION-EVERY-TRANSITION",
        )
        assert isinstance(data, dict)
        shown = [k for k in STATED_FIELDS if listed.get(k) is not None]
        check(
            all(k in data for k in shown) and data.get("direction") == listed.get("direction"),
            EVENTS_CLAUSE,
            f"{PREFIX}{status} carries the full card transaction: every §2 field the listed "
            "transaction shows",
            expected=shown,
            observed=sorted(data),
            hint=named[0].summary(),
            requirement="WEBHOOK-CARD-TRANSACTION-EVERY-TRANSITION",
        )
    for refund in refunds[:1]:
        refund_id = str(refund.get("id"))
        seen += wait_card_event(
            resource_events, refund_id, after=mark, why="a refund row fires its own events: it"
        )
        reversal_mark = resource_events.mark()
        response = cards.client.post(
            f"/sandbox/cards/{card.id}/simulate/return_reversal",
            json={profile.field_name("card_return_reversal_id"): refund_id},
        )
        if 200 <= response.status < 300:
            seen += wait_card_event(
                resource_events,
                refund_id,
                after=reversal_mark,
                why="the simulated reversal of a return changes its refund row's state, which",
            )
    check_event_envelopes(resource_events.registry, seen, STATEMENT)
    earlier = resource_events.about(voided_id, PREFIX, after=mark)
    if all(d.event_type == PREFIX + "VOIDED" for d in earlier):
        advisory(
            "no CARD_TRANSACTION event announced the approved authorization before it was voided"
        )
