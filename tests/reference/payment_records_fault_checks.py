"""Checks for the fault modes of ``reference/faults/payment_records.py``: payment records:
limits, holds, money rules, quote and transaction records; ``test_faults`` adds them to its
``CHECKS``."""

from __future__ import annotations

from typing import Any

import httpx

from .card_helpers import card_for
from .customer_helpers import created
from .money_helpers import (
    CONCURRENT,
    approved,
    available,
    error_code,
    execute,
    external,
    funded,
    internal_accounts,
    parse,
    payment_events,
    quote,
    quote_body,
    race,
    transaction,
    wait_past,
)
from .reference_helpers import (
    FaultChecks,
    RunningSandbox,
    WebhookReceiver,
    with_webhook_id,
)
from .test_jit_uma_onchain import jit_body
from .wallet_client_helpers import (
    customer,
)

PAYMENT_RECORDS_CHECKS = FaultChecks()
check = PAYMENT_RECORDS_CHECKS.add


def _paid(client: httpx.Client) -> tuple[dict[str, Any], dict[str, Any]]:
    holder = funded(client, 50_000)
    return holder.customer, quote(client, holder.account_id(), external(client, holder.id)["id"])


def _listed(client: httpx.Client, customer_id: str) -> dict[str, Any]:
    [item] = client.get("/transactions", params={"customerId": customer_id}).json()["data"]
    return item


def failed_payout(client: httpx.Client, receiver: WebhookReceiver) -> tuple[str, str]:
    """Execute a 10 000 payout to a 099 account from 50 000; (customer id, transaction id)."""
    client.patch("/config", json={"webhookEndpoint": receiver.url})
    holder = funded(client, 50_000)
    destination = external(client, holder.id, "US_ACCOUNT", "099")["id"]
    body = quote(client, holder.account_id(), destination)
    execute(client, body["id"])
    failed = transaction(client, body["transactionId"])
    assert failed["status"] == "FAILED" and failed["refund"]["status"] == "COMPLETED"
    return holder.id, body["transactionId"]


@check("internal-account-card-capabilities-missing")
def _(sandbox: RunningSandbox, receiver: WebhookReceiver) -> None:
    with sandbox.client() as client:
        holder, _ = card_for(client)
        account = internal_accounts(client, holder.id)["USD"]
        assert "cardCapabilities" not in account


@check("rate-refusal-debits")
def _(sandbox: RunningSandbox, receiver: WebhookReceiver) -> None:
    with sandbox.client() as client:
        holder = funded(client, 50_000)
        body = quote(client, holder.account_id(), external(client, holder.id)["id"])
        client.post(f"/sandbox/quotes/{body['id']}/refuse-rate").raise_for_status()
        answer = client.post(f"/quotes/{body['id']}/execute")
        assert error_code(answer, 409) == "QUOTE_RATE_UNAVAILABLE"
        assert available(client, holder.id) == 40_000


@check("quote-amount-as-string")
def _(sandbox: RunningSandbox, receiver: WebhookReceiver) -> None:
    with sandbox.client() as client:
        _, created = _paid(client)
        assert created["totalSendingAmount"] == "10000"
        assert client.get(f"/quotes/{created['id']}").json()["totalSendingAmount"] == 10_000


@check("quote-status-repeated")
def _(sandbox: RunningSandbox, receiver: WebhookReceiver) -> None:
    with sandbox.client() as client:
        holder = funded(client, 50_000)
        body = quote_body(holder.account_id(), external(client, holder.id)["id"])
        response = client.post("/quotes", json=body)
        assert response.status_code == 201
        assert response.content.startswith(b'{"status": "COMPLETED", ')
        assert response.content.count(b'"status":') == 2
        assert response.json()["status"] == "PENDING"  # the last value is the quote's own
        read = client.get(f"/quotes/{response.json()['id']}")
        assert read.content.count(b'"status":') == 1  # only the creation's answer repeats it


@check("transaction-id-unprefixed")
def _(sandbox: RunningSandbox, receiver: WebhookReceiver) -> None:
    with sandbox.client() as client:
        customer, created = _paid(client)
        listed = client.get("/transactions", params={"customerId": customer["id"]}).json()
        [item] = listed["data"]
        assert item["id"] == str(created["transactionId"]).removeprefix("Transaction:")


@check("quote-description-null")
def _(sandbox: RunningSandbox, receiver: WebhookReceiver) -> None:
    with sandbox.client() as client:
        _, created = _paid(client)  # sent without a description
        read = client.get(f"/quotes/{created['id']}").json()
        assert "description" in created and created["description"] is None
        assert "description" in read and read["description"] is None


@check("transaction-description-null")
def _(sandbox: RunningSandbox, receiver: WebhookReceiver) -> None:
    with sandbox.client() as client:
        customer, created = _paid(client)
        assert "description" not in created  # quotes are spared
        listed = client.get("/transactions", params={"customerId": customer["id"]}).json()
        [item] = listed["data"]
        assert "description" in item and item["description"] is None


@check("internal-account-balance-missing")
def _(sandbox: RunningSandbox, receiver: WebhookReceiver) -> None:
    with sandbox.client() as client:
        accounts = client.get("/customers/internal-accounts").json()["data"]
        assert accounts and all("availableBalance" not in a for a in accounts)
        assert all("totalBalance" in a for a in accounts)


@check("external-account-bad-status")
def _(sandbox: RunningSandbox, receiver: WebhookReceiver) -> None:
    with sandbox.client() as client:
        holder = funded(client, 1_000)
        assert external(client, holder.id)["status"] == "VERIFIED_ACTIVE"


@check("listed-currency-decimals-off")
def _(sandbox: RunningSandbox, receiver: WebhookReceiver) -> None:
    with sandbox.client() as client:
        customer, created = _paid(client)
        item = _listed(client, customer["id"])
    assert created["sendingCurrency"]["decimals"] == 2  # quotes state USD right
    assert item["sentAmount"]["currency"] == {**created["sendingCurrency"], "decimals": 3}
    assert item["receivedAmount"]["currency"]["decimals"] == 2  # only sentAmount is off


@check("completed-listed-as-processing-again")
def _(sandbox: RunningSandbox, receiver: WebhookReceiver) -> None:
    with sandbox.client() as client:
        customer, created = _paid(client)
        assert _listed(client, customer["id"])["status"] == "PENDING"  # not completed: spared
        execute(client, created["id"])
        reads = [_listed(client, customer["id"])["status"] for _ in range(4)]
    assert reads == ["COMPLETED", "PROCESSING", "COMPLETED", "PROCESSING"]


@check("listed-received-amount-short")
def _(sandbox: RunningSandbox, receiver: WebhookReceiver) -> None:
    with sandbox.client() as client:
        customer, created = _paid(client)
        item = _listed(client, customer["id"])
    assert item["receivedAmount"]["amount"] == created["totalReceivingAmount"] - 1
    assert item["sentAmount"]["amount"] == created["totalSendingAmount"]


@check("completed-failure-reason")
def _(sandbox: RunningSandbox, receiver: WebhookReceiver) -> None:
    with sandbox.client() as client:
        holder = funded(client, currencies=["USD", "EUR"])
        paid = quote(client, holder.account_id("USD"), holder.account_id("EUR"))
        execute(client, paid["id"])
        one = client.get(f"/transactions/{paid['transactionId']}").json()
        listed = client.get("/transactions", params={"customerId": holder.id}).json()["data"]
    assert (one["status"], one["failureReason"]) == ("COMPLETED", "PAYOUT_RETURNED")
    assert [t["failureReason"] for t in listed] == ["PAYOUT_RETURNED"]


@check("jit-execute-starts-transfer")
def _(sandbox: RunningSandbox, receiver: WebhookReceiver) -> None:
    with sandbox.client() as client:
        holder = approved(client)
        jit = created(client.post("/quotes", json=jit_body(holder.id, holder.account_id())))
        answer = client.post(f"/quotes/{jit['id']}/execute")
        assert (answer.status_code, answer.json()["status"]) == (200, "PROCESSING")
        assert client.get(f"/quotes/{jit['id']}").json()["status"] == "PENDING"  # as read
        started = client.get(f"/transactions/{jit['transactionId']}").json()
        assert started["status"] == "PROCESSING"
        assert available(client, holder.id) == 0  # no money landed yet


@check("jit-instructions-missing-non-usd")
def _(sandbox: RunningSandbox, receiver: WebhookReceiver) -> None:
    with sandbox.client() as client:
        holder = approved(client)
        usd = created(client.post("/quotes", json=jit_body(holder.id, holder.account_id())))
        eur = jit_body(holder.id, holder.account_id(), currency="EUR")
        euros = created(client.post("/quotes", json=eur))
        read = client.get(f"/quotes/{euros['id']}").json()
    assert usd["paymentInstructions"]
    assert euros["paymentInstructions"] == [] and read["paymentInstructions"] == []


@check("card-status-filter-card-statuses")
def _(sandbox: RunningSandbox, receiver: WebhookReceiver) -> None:
    with sandbox.client() as client:
        card = client.get("/transactions", params={"status": "SETTLED", "type": "CARD"})
        payment = client.get("/transactions", params={"status": "COMPLETED", "type": "CARD"})
    assert card.status_code == 200 and isinstance(card.json()["data"], list)
    assert payment.status_code == 400


@check("sca-non-sca-authorize-executes")
def _(sandbox: RunningSandbox, receiver: WebhookReceiver) -> None:
    with sandbox.client() as client:
        us = funded(client, currencies=["USD", "EUR"])
        pending = quote(client, us.account_id("USD"), us.account_id("EUR"))
        answer = client.post(f"/quotes/{pending['id']}/authorize", json={"code": "000000"})
        assert (answer.status_code, answer.json()["status"]) == (200, "PROCESSING")
        eur = internal_accounts(client, us.id)["EUR"]["availableBalance"]["amount"]
        assert eur == pending["totalReceivingAmount"]  # released: the money moved
        again = client.post(f"/quotes/{pending['id']}/authorize", json={"code": "000000"})
        assert again.status_code == 409  # an executed quote still answers 409


@check("execute-double-debit")
def _(sandbox: RunningSandbox, receiver: WebhookReceiver) -> None:
    with sandbox.client() as client:
        holder = funded(client, 50_000)
        body = quote(client, holder.account_id(), external(client, holder.id)["id"])
        execute(client, body["id"])
        execute(client, body["id"])  # 200 instead of 409
        assert available(client, holder.id) == 30_000


@check("execute-after-expiry")
def _(sandbox: RunningSandbox, receiver: WebhookReceiver) -> None:
    with sandbox.client() as client:
        holder = funded(client, 50_000)
        body = quote(client, holder.account_id(), external(client, holder.id)["id"])
        wait_past(body["expiresAt"])
        assert execute(client, body["id"])["status"] == "PROCESSING"
        assert available(client, holder.id) == 40_000


@check("refund-event-missing")
def _(sandbox: RunningSandbox, receiver: WebhookReceiver) -> None:
    with sandbox.client() as client:
        customer_id, transaction_id = failed_payout(client, receiver)
        assert available(client, customer_id) == 50_000  # still refunded
        # one endpoint's deliveries go in outbox order: once TEST arrives, all came
        webhook_id = client.post("/sandbox/webhooks/test").json()["webhookId"]
    receiver.wait_for(with_webhook_id(webhook_id))
    events = payment_events(receiver, transaction_id, 2)
    assert [e["type"] for e in events] == ["OUTGOING_PAYMENT.PROCESSING", "OUTGOING_PAYMENT.FAILED"]


@check("money-leak-on-refund")
def _(sandbox: RunningSandbox, receiver: WebhookReceiver) -> None:
    with sandbox.client() as client:
        customer_id, transaction_id = failed_payout(client, receiver)
        assert available(client, customer_id) == 49_999
    assert len(payment_events(receiver, transaction_id, 4)) == 4  # the events are all there


@check("execute-not-atomic")
def _(sandbox: RunningSandbox, receiver: WebhookReceiver) -> None:
    with sandbox.client() as client:
        holder = funded(client, 1_000_000)
        body = quote(client, holder.account_id(), external(client, holder.id)["id"])
        codes = race(sandbox, body["id"])
        assert codes[200] > 1 and codes[200] + codes[409] == CONCURRENT, codes
        assert available(client, holder.id) == 1_000_000 - 10_000 * codes[200]
        later = quote(client, holder.account_id(), external(client, holder.id)["id"])
        execute(client, later["id"])  # sequential executes are still refused the second time
        assert client.post(f"/quotes/{later['id']}/execute").status_code == 409


@check("wallet-privacy-flag-everywhere")
def _(sandbox: RunningSandbox, receiver: WebhookReceiver) -> None:
    with sandbox.client() as client:
        customer_id = customer(client)
        listed = client.get("/customers/internal-accounts", params={"customerId": customer_id})
        assert listed.json()["data"]
        assert all("privateEnabled" in account for account in listed.json()["data"])


@check("executed-quote-lives-20-minutes")
def _(sandbox: RunningSandbox, receiver: WebhookReceiver) -> None:
    with sandbox.client() as client:
        holder = funded(client, 50_000)
        destination = external(client, holder.id)["id"]
        pending = quote(client, holder.account_id(), destination)
        done = quote(client, holder.account_id(), destination, immediatelyExecute=True)
        again = client.get(f"/quotes/{done['id']}").json()
    assert (parse(pending["expiresAt"]) - parse(pending["createdAt"])).total_seconds() <= 900
    for stated in (done, again):
        assert stated["status"] != "PENDING"
        assert (parse(stated["expiresAt"]) - parse(stated["createdAt"])).total_seconds() == 1200
