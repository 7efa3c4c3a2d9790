"""Returned incoming deposits in the reference (SANDBOX.md, "Rule-based accounts,
ownership verification, payout scenarios and incoming payments")."""

from __future__ import annotations

import httpx

from .money_helpers import approved, available, parse
from .reference_helpers import WebhookReceiver


def test_a_returned_deposit_is_refunded_with_events_and_nets_out(
    client: httpx.Client, receiver: WebhookReceiver
) -> None:
    client.patch("/config", json={"webhookEndpoint": receiver.url})
    holder = approved(client)
    before = available(client, holder.id)
    response = client.post(
        f"/sandbox/internal-accounts/{holder.account_id()}/returned-deposit", json={"amount": 700}
    )
    assert response.status_code == 200, response.text
    transaction = response.json()
    assert (transaction["type"], transaction["direction"]) == ("INCOMING", "CREDIT")
    assert transaction["refund"]["status"] == "COMPLETED"
    assert available(client, holder.id) == before

    def mine(deliveries: list) -> list[dict]:
        events = [d.json() for d in deliveries]
        return [
            e
            for e in events
            if str(e.get("type", "")).startswith("INCOMING_PAYMENT.")
            and e["data"]["id"] == transaction["id"]
        ]

    events = sorted(
        mine(receiver.wait_for(lambda ds: len(mine(ds)) >= 2)), key=lambda e: parse(e["timestamp"])
    )
    assert [e["type"] for e in events] == [
        "INCOMING_PAYMENT.REFUND_PENDING",
        "INCOMING_PAYMENT.REFUND_COMPLETED",
    ]
    listed = client.get("/transactions", params={"customerId": holder.id}).json()["data"]
    assert [t["id"] for t in listed] == [transaction["id"]]
