"""Helpers for the reference's card tests: issue a card, drive the simulators, read events."""

from __future__ import annotations

from typing import Any

import httpx

from .money_helpers import Holder, funded
from .reference_helpers import WebhookReceiver

MERCHANT = {"name": "Corner Shop", "city": "Austin", "state": "TX", "country": "US"}


def card_for(client: httpx.Client, amount: int = 50_000) -> tuple[Holder, dict[str, Any]]:
    """A funded customer and a card on their USD account."""
    holder = funded(client, amount)
    response = client.post("/cards", json={"internalAccountId": holder.account_id()})
    assert response.status_code == 201, response.text
    return holder, response.json()


def simulate(client: httpx.Client, card_id: str, action: str, **body: Any) -> httpx.Response:
    return client.post(f"/sandbox/cards/{card_id}/simulate/{action}", json=body)


def ok(response: httpx.Response) -> dict[str, Any]:
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return body


def authorize(client: httpx.Client, card_id: str, amount: int) -> dict[str, Any]:
    return ok(simulate(client, card_id, "authorization", amount=amount, merchant=MERCHANT))


def purchase(client: httpx.Client, card_id: str, amount: int) -> dict[str, Any]:
    """An authorization cleared in full: the SETTLED purchase."""
    auth = authorize(client, card_id, amount)
    return ok(simulate(client, card_id, "clearing", transactionId=auth["id"]))


def card_rows(client: httpx.Client, card_id: str) -> list[dict[str, Any]]:
    response = client.get("/transactions", params={"cardId": card_id})
    assert response.status_code == 200, response.text
    rows: list[dict[str, Any]] = response.json()["data"]
    return rows


def card_events(receiver: WebhookReceiver, transaction_id: str, count: int) -> list[dict[str, Any]]:
    """At least ``count`` CARD_TRANSACTION events about the row, by timestamp."""

    def mine(deliveries: list[Any]) -> list[dict[str, Any]]:
        events = [d.json() for d in deliveries]
        return [
            e
            for e in events
            if str(e.get("type", "")).startswith("CARD_TRANSACTION.")
            and e["data"]["id"] == transaction_id
        ]

    return sorted(
        mine(receiver.wait_for(lambda ds: len(mine(ds)) >= count)), key=lambda e: e["timestamp"]
    )
