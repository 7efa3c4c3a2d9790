"""Checks for the fault modes of ``reference/faults/cards.py``: cards: declines, reversals,
returns, events, tokenize; ``test_faults`` adds them to its ``CHECKS``."""

from __future__ import annotations

import base64
import json

from .card_helpers import authorize, card_for, card_rows, ok, purchase, simulate
from .reference_helpers import FaultChecks, RunningSandbox, WebhookReceiver

CARDS_CHECKS = FaultChecks()
check = CARDS_CHECKS.add


@check("card-decline-as-exception")
def _(sandbox: RunningSandbox, receiver: WebhookReceiver) -> None:
    with sandbox.client() as client:
        _, card = card_for(client, 100)
        assert authorize(client, card["id"], 5_000)["status"] == "EXCEPTION"


@check("card-declined-reason-missing")
def _(sandbox: RunningSandbox, receiver: WebhookReceiver) -> None:
    with sandbox.client() as client:
        _, card = card_for(client, 100)
        declined = authorize(client, card["id"], 5_000)
        assert declined["status"] == "DECLINED" and "cardDeclinedReason" not in declined


@check("card-reversal-not-voided")
def _(sandbox: RunningSandbox, receiver: WebhookReceiver) -> None:
    with sandbox.client() as client:
        _, card = card_for(client)
        auth = authorize(client, card["id"], 100)
        after = ok(simulate(client, card["id"], "reversal", transactionId=auth["id"]))
        assert after["status"] == "AUTHORIZED"


@check("card-return-merged")
def _(sandbox: RunningSandbox, receiver: WebhookReceiver) -> None:
    with sandbox.client() as client:
        _, card = card_for(client)
        bought = purchase(client, card["id"], 500)
        answer = ok(simulate(client, card["id"], "return", transactionId=bought["id"], amount=200))
        assert answer["id"] == bought["id"] and len(card_rows(client, card["id"])) == 1


@check("card-refunded-status")
def _(sandbox: RunningSandbox, receiver: WebhookReceiver) -> None:
    with sandbox.client() as client:
        _, card = card_for(client)
        bought = purchase(client, card["id"], 500)
        ok(simulate(client, card["id"], "return", transactionId=bought["id"], amount=200))
        rows = {r["id"]: r for r in card_rows(client, card["id"])}
        assert rows[bought["id"]]["status"] == "REFUNDED"


@check("card-settled-event-missing")
def _(sandbox: RunningSandbox, receiver: WebhookReceiver) -> None:
    with sandbox.client() as client:
        client.patch("/config", json={"webhookEndpoint": receiver.url})
        _, card = card_for(client)
        bought = purchase(client, card["id"], 500)
        declined = authorize(client, card["id"], 10**9)  # a later event: the earlier are out

        def about(ds: list, row_id: str) -> list[str]:
            return [d.json()["type"] for d in ds if d.json().get("data", {}).get("id") == row_id]

        deliveries = receiver.wait_for(lambda ds: bool(about(ds, declined["id"])))
        assert about(deliveries, bought["id"]) == ["CARD_TRANSACTION.AUTHORIZED"]


@check("card-amount-metadata-missing")
def _(sandbox: RunningSandbox, receiver: WebhookReceiver) -> None:
    with sandbox.client() as client:
        _, card = card_for(client)
        assert "name" not in authorize(client, card["id"], 100)["settledAmount"]["currency"]


@check("card-merchant-location-dropped")
def _(sandbox: RunningSandbox, receiver: WebhookReceiver) -> None:
    with sandbox.client() as client:
        _, card = card_for(client)
        assert "city" not in authorize(client, card["id"], 100)["merchant"]


@check("card-capabilities-missing")
def _(sandbox: RunningSandbox, receiver: WebhookReceiver) -> None:
    with sandbox.client() as client:
        _, card = card_for(client)
        assert "cardCapabilities" not in card


@check("card-tokenize-plaintext")
def _(sandbox: RunningSandbox, receiver: WebhookReceiver) -> None:
    with sandbox.client() as client:
        _, card = card_for(client)
        answer = client.post(f"/cards/{card['id']}/tokenize", json={"walletProvider": "APPLE_PAY"})
        payload = answer.json()["encryptedPayload"]
        plain = json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))
        assert plain["cardId"] == card["id"]


@check("return-reversal-ignored")
def _(sandbox: RunningSandbox, receiver: WebhookReceiver) -> None:
    with sandbox.client() as client:
        _, card = card_for(client)
        bought = purchase(client, card["id"], 500)
        refund = ok(simulate(client, card["id"], "return", transactionId=bought["id"], amount=200))
        after = ok(simulate(client, card["id"], "return_reversal", transactionId=refund["id"]))
        assert after["status"] == "SETTLED"


@check("card-expiry-not-voided")
def _(sandbox: RunningSandbox, receiver: WebhookReceiver) -> None:
    with sandbox.client() as client:
        _, card = card_for(client)
        auth = authorize(client, card["id"], 100)
        after = ok(simulate(client, card["id"], "expiry", transactionId=auth["id"]))
        assert after["status"] == "EXCEPTION"


@check("card-event-partial-data")
def _(sandbox: RunningSandbox, receiver: WebhookReceiver) -> None:
    with sandbox.client() as client:
        client.patch("/config", json={"webhookEndpoint": receiver.url})
        _, card = card_for(client)
        auth = authorize(client, card["id"], 100)

        def about(ds: list) -> list[dict]:
            return [d.json() for d in ds if d.json().get("data", {}).get("id") == auth["id"]]

        event = about(receiver.wait_for(lambda ds: bool(about(ds))))[0]
        assert event["data"] == {"id": auth["id"], "status": "AUTHORIZED"}
