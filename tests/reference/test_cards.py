"""Cards in the reference (SANDBOX.md, "Cards, agents and invitations"): issuing, the
network simulators, the §2 CardTransaction rules and their CARD_TRANSACTION.* events."""

from __future__ import annotations

import httpx

from .card_helpers import (
    MERCHANT,
    authorize,
    card_events,
    card_for,
    card_rows,
    ok,
    purchase,
    simulate,
)
from .customer_helpers import missing_records
from .money_helpers import available
from .reference_helpers import WebhookReceiver


def test_a_card_is_issued_with_its_capabilities(client: httpx.Client) -> None:
    holder, card = card_for(client)
    assert card["id"].startswith("Card:")
    assert card["cardCapabilities"] == {"supportsDigitalWalletTokenization": True}
    assert card["customerId"] == holder.id
    assert client.get(f"/cards/{card['id']}").json()["id"] == card["id"]


def test_an_authorization_holds_and_clearing_settles(client: httpx.Client) -> None:
    holder, card = card_for(client, 10_000)
    auth = authorize(client, card["id"], 2_500)
    assert (auth["status"], auth["direction"], auth["type"]) == ("AUTHORIZED", "DEBIT", "CARD")
    assert auth["merchant"]["city"] == "Austin" and auth["merchant"]["state"] == "TX"
    assert available(client, holder.id) == 7_500
    settled = ok(simulate(client, card["id"], "clearing", transactionId=auth["id"]))
    assert settled["status"] == "SETTLED" and settled["settledAmount"]["amount"] == 2_500
    assert settled["settledAmount"]["currency"]["symbol"] == "$"
    assert available(client, holder.id) == 7_500


def test_an_underfunded_authorization_is_declined_not_exception(client: httpx.Client) -> None:
    holder, card = card_for(client, 1_000)
    declined = authorize(client, card["id"], 5_000)
    assert declined["status"] == "DECLINED"
    assert declined["cardDeclinedReason"] == "INSUFFICIENT_FUNDS"
    assert available(client, holder.id) == 1_000


def test_a_full_reversal_voids_and_releases(client: httpx.Client) -> None:
    holder, card = card_for(client, 10_000)
    auth = authorize(client, card["id"], 4_000)
    voided = ok(simulate(client, card["id"], "reversal", transactionId=auth["id"]))
    assert voided["status"] == "VOIDED"
    assert available(client, holder.id) == 10_000
    again = simulate(client, card["id"], "clearing", transactionId=auth["id"])
    assert again.status_code == 409
    expiring = authorize(client, card["id"], 1_000)
    expired = ok(simulate(client, card["id"], "expiry", transactionId=expiring["id"]))
    assert expired["status"] == "VOIDED"
    assert available(client, holder.id) == 10_000


def test_a_return_opens_its_own_row_and_its_reversal_takes_it_back(client: httpx.Client) -> None:
    holder, card = card_for(client, 10_000)
    bought = purchase(client, card["id"], 3_000)
    refund = ok(simulate(client, card["id"], "return", transactionId=bought["id"], amount=1_000))
    assert refund["id"] != bought["id"]
    assert (refund["direction"], refund["status"]) == ("CREDIT", "SETTLED")
    assert refund["originalTransactionId"] == bought["id"]
    assert refund["settledAmount"]["amount"] == 1_000
    rows = {r["id"]: r for r in card_rows(client, card["id"])}
    assert rows[bought["id"]]["status"] == "SETTLED"
    assert available(client, holder.id) == 8_000
    reversed_ = ok(simulate(client, card["id"], "return_reversal", transactionId=refund["id"]))
    assert reversed_["status"] == "REVERSED"
    assert available(client, holder.id) == 7_000
    not_a_return = simulate(client, card["id"], "return_reversal", transactionId=bought["id"])
    assert not_a_return.status_code == 409


def test_card_transactions_list_by_card_id_or_uuid(client: httpx.Client) -> None:
    _, card = card_for(client)
    row = authorize(client, card["id"], 100)
    bare = card["id"].split(":", 1)[1]
    assert [r["id"] for r in card_rows(client, bare)] == [row["id"]]
    assert [r["id"] for r in card_rows(client, card["id"])] == [row["id"]]
    typed = client.get("/transactions", params={"type": "CARD", "cardId": card["id"]})
    assert [r["id"] for r in typed.json()["data"]] == [row["id"]]
    refused = client.get("/transactions", params={"type": "CARD", "status": "COMPLETED"})
    assert refused.status_code == 400


def test_every_transition_fires_a_card_event(
    client: httpx.Client, receiver: WebhookReceiver
) -> None:
    client.patch("/config", json={"webhookEndpoint": receiver.url})
    _, card = card_for(client)
    bought = purchase(client, card["id"], 700)
    events = card_events(receiver, bought["id"], 2)
    assert [e["type"] for e in events] == [
        "CARD_TRANSACTION.AUTHORIZED",
        "CARD_TRANSACTION.SETTLED",
    ]
    assert events[-1]["data"]["merchant"] == MERCHANT


def test_tokenize_answers_a_jwe_to_the_provider_key(client: httpx.Client) -> None:
    _, card = card_for(client)
    body = {"walletProvider": "GOOGLE_PAY", "deviceId": "d1", "nonce": "n1"}
    answer = client.post(f"/cards/{card['id']}/tokenize", json=body)
    assert answer.status_code == 200, answer.text
    payload = answer.json()["encryptedPayload"]
    assert payload.count(".") == 4
    assert client.post(f"/cards/{card['id']}/tokenize", json={}).status_code == 400
    key = client.get("/sandbox/cards/wallet-provider-key").json()
    assert "PRIVATE KEY" in key["privateKeyPem"]


def test_internal_accounts_state_whether_they_fund_a_card(client: httpx.Client) -> None:
    holder, _ = card_for(client)
    usd = holder.accounts["USD"]
    listed = client.get("/customers/internal-accounts", params={"customerId": holder.id}).json()
    by_type = {(a["type"], a["currency"]): a for a in listed["data"]}
    assert by_type[("INTERNAL_FIAT", "USD")]["cardCapabilities"] == {
        "supportsDigitalWalletTokenization": True
    }
    assert "cardCapabilities" not in by_type[("INTERNAL_CRYPTO", "USDC")]
    crypto = by_type[("INTERNAL_CRYPTO", "USDC")]["id"]
    refused = client.post("/cards", json={"internalAccountId": crypto})
    assert refused.status_code == 400 and usd["id"] != crypto
    nowhere = "InternalAccount:00000000-0000-4000-8000-000000000000"
    unknown = client.post("/cards", json={"internalAccountId": nowhere})
    assert missing_records(unknown) == {"internalAccountId": "UNKNOWN_ACCOUNT"}
