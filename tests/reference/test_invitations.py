"""Invitations in the reference (SANDBOX.md, "Cards, agents and invitations")."""

from __future__ import annotations

import httpx

from .money_helpers import approved
from .reference_helpers import RunningSandbox, WebhookReceiver


def test_a_claim_attaches_the_uma_address_and_fires_its_event(
    client: httpx.Client, receiver: WebhookReceiver
) -> None:
    client.patch("/config", json={"webhookEndpoint": receiver.url})
    inviter, invitee = approved(client), approved(client, "Bo Chen")
    made = client.post("/invitations", json={"inviterCustomerId": inviter.id})
    assert made.status_code == 201, made.text
    invitation = made.json()
    assert (invitation["status"], invitation["inviteeUmaAddress"]) == ("PENDING", None)
    claimed = client.post(f"/invitations/{invitation['id']}/claim", json={"customerId": invitee.id})
    assert claimed.status_code == 200, claimed.text
    body = claimed.json()
    assert body["status"] == "CLAIMED" and body["claimedByCustomerId"] == invitee.id
    assert body["inviteeUmaAddress"].startswith("$u") and "@" in body["inviteeUmaAddress"]
    again = client.post(f"/invitations/{invitation['id']}/claim", json={"customerId": invitee.id})
    assert again.status_code == 409
    assert client.get(f"/invitations/{invitation['id']}").json()["status"] == "CLAIMED"

    def mine(deliveries: list) -> list[dict]:
        events = [d.json() for d in deliveries]
        return [e for e in events if e.get("data", {}).get("id") == invitation["id"]]

    events = mine(receiver.wait_for(lambda ds: bool(mine(ds))))
    assert [e["type"] for e in events] == ["INVITATION.CLAIMED"]
    assert events[0]["data"]["status"] == "CLAIMED"


def test_an_unknown_customer_cannot_claim(client: httpx.Client) -> None:
    invitation = client.post("/invitations", json={}).json()
    refused = client.post(f"/invitations/{invitation['id']}/claim", json={"customerId": "x"})
    assert refused.status_code == 400


def test_stablecoins_are_listed_behind_authentication(
    client: httpx.Client, sandbox: RunningSandbox
) -> None:
    assert client.get("/stablecoins").json() == {"data": []}
    assert httpx.get(f"{sandbox.base_url}/stablecoins").status_code == 401
