"""Checks for the fault modes of invitations and stablecoins; ``test_faults`` adds them to
its ``CHECKS``."""

from __future__ import annotations

from typing import Any

import httpx

from .money_helpers import approved
from .reference_helpers import FaultChecks, RunningSandbox, WebhookReceiver

INVITATION_CHECKS = FaultChecks()
check = INVITATION_CHECKS.add


def _claimed(client: httpx.Client) -> dict[str, Any]:
    invitation = client.post("/invitations", json={}).json()
    invitee = approved(client)
    answer = client.post(f"/invitations/{invitation['id']}/claim", json={"customerId": invitee.id})
    assert answer.status_code == 200, answer.text
    body: dict[str, Any] = answer.json()
    return body


@check("invitation-claim-no-uma")
def _(sandbox: RunningSandbox, receiver: WebhookReceiver) -> None:
    with sandbox.client() as client:
        claimed = _claimed(client)
        assert claimed["status"] == "CLAIMED" and claimed["inviteeUmaAddress"] is None


@check("invitation-claim-no-event")
def _(sandbox: RunningSandbox, receiver: WebhookReceiver) -> None:
    with sandbox.client() as client:
        client.patch("/config", json={"webhookEndpoint": receiver.url})
        claimed = _claimed(client)
        client.post("/sandbox/webhooks/test")  # a later delivery: the claim's would be earlier
        deliveries = receiver.wait_for(lambda ds: any(d.json().get("test") for d in ds))
        assert not [d for d in deliveries if claimed["id"] in d.body.decode()]


@check("stablecoins-unauthenticated")
def _(sandbox: RunningSandbox, receiver: WebhookReceiver) -> None:
    answer = httpx.get(f"{sandbox.base_url}/stablecoins")
    assert answer.status_code == 200 and answer.json() == {"data": [], "nextCursor": None}
