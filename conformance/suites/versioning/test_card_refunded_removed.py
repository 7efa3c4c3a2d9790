"""§9 Versioning, removals: ``REFUNDED`` is no longer a card transaction status and
``CARD_TRANSACTION.REFUNDED`` is no longer emitted; a merchant return has its own row instead
(§2 CardTransaction). Card activity comes from the adapter."""

from __future__ import annotations

import pytest

from conformance.cards.events import PREFIX, wait_card_event
from conformance.cards.flows import AUTHORIZE_HOOK, CLEAR_HOOK, ISSUE_HOOK, RETURN_HOOK
from conformance.contract import clauses
from conformance.contract import endpoint_schemas as contract
from conformance.contract.failures import check
from conformance.contract.markers import needs_adapter_hook

pytestmark = [
    pytest.mark.resource("CardTransaction"),
    pytest.mark.writes,
    pytest.mark.feature("cards"),
    needs_adapter_hook(ISSUE_HOOK),
    needs_adapter_hook(AUTHORIZE_HOOK),
    needs_adapter_hook(CLEAR_HOOK),
    needs_adapter_hook(RETURN_HOOK),
]

CLAUSE = clauses.VERSIONING + ", item 3"


@pytest.mark.requirement(
    "VERSION-REMOVED-CARD-REFUNDED-STATUS", "VERSION-REMOVED-CARD-REFUNDED-EVENT"
)
def test_a_merchant_return_shows_no_refunded_status_or_event(cards, request, advisory):
    try:  # the events half needs the webhook sink; the status half does not
        resource_events = request.getfixturevalue("resource_events")
    except pytest.skip.Exception as skipped:
        resource_events = None
        advisory(f"CARD_TRANSACTION.REFUNDED was not looked for: {skipped}")
    mark = resource_events.mark() if resource_events is not None else 0
    card = cards.issue(20_000)
    purchase_id = cards.purchase(card, 1_000)
    cards.merchant_return(card, purchase_id, 1_000)
    listed = cards.client.get("/transactions", params={"cardId": card.id}, validate=False)
    rows = [r for r in contract.list_items(listed.json) or [] if isinstance(r, dict)]
    check(
        all(r.get("status") != "REFUNDED" for r in rows),
        CLAUSE,
        "REFUNDED was removed from the card transaction status",
        observed=[(r.get("id"), r.get("status")) for r in rows],
        exchange=listed.exchange,
        requirement="VERSION-REMOVED-CARD-REFUNDED-STATUS",
    )
    if resource_events is None:
        return
    wait_card_event(resource_events, purchase_id, after=mark, why="the purchase's settling")
    refunds = [r for r in rows if r.get("originalTransactionId") == purchase_id]
    for refund in refunds[:1]:
        wait_card_event(resource_events, str(refund.get("id")), after=mark, why="a refund row")
    refunded = [
        d.summary()
        for row_id in [purchase_id, *(str(r.get("id")) for r in refunds)]
        for d in resource_events.about(row_id, PREFIX, after=mark)
        if d.event_type == PREFIX + "REFUNDED"
    ]
    check(
        not refunded,
        CLAUSE,
        "CARD_TRANSACTION.REFUNDED was removed from the webhook types",
        observed=refunded,
        requirement="VERSION-REMOVED-CARD-REFUNDED-EVENT",
    )
