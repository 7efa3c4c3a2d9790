"""Invitations in the reference (SANDBOX.md, "Cards, agents and invitations")."""

from __future__ import annotations

import httpx

from .customer_helpers import missing_records
from .money_helpers import approved
from .reference_helpers import RunningSandbox, WebhookReceiver, invalid_fields

NOBODY = "Customer:00000000-0000-4000-8000-000000000000"  # well formed, no such customer


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


def test_a_claim_naming_no_customer_is_404_and_one_naming_none_400(client: httpx.Client) -> None:
    """An id naming no customer is 404, as one in a path; a missing or non-string id 400."""
    invitation = client.post("/invitations", json={}).json()
    claim = f"/invitations/{invitation['id']}/claim"
    unknown = client.post(claim, json={"customerId": NOBODY})
    assert missing_records(unknown) == {"customerId": "UNKNOWN_CUSTOMER"}
    assert invalid_fields(client.post(claim, json={})) == {"customerId"}
    assert invalid_fields(client.post(claim, json={"customerId": 7})) == {"customerId"}
    inviter = client.post("/invitations", json={"inviterCustomerId": NOBODY})
    assert missing_records(inviter) == {"inviterCustomerId": "UNKNOWN_CUSTOMER"}
    assert client.get(f"/invitations/{invitation['id']}").json()["status"] == "PENDING"


def test_stablecoins_are_listed_behind_authentication(
    client: httpx.Client, sandbox: RunningSandbox
) -> None:
    assert client.get("/stablecoins").json() == {"data": [], "nextCursor": None}
    assert httpx.get(f"{sandbox.base_url}/stablecoins").status_code == 401
