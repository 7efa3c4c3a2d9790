"""Checks for the fault modes of quotes and their execution: pricing, double and late
execution, the refund of a failed payout; ``test_faults`` adds them to its ``CHECKS``."""

from __future__ import annotations

import math
from fractions import Fraction

import httpx

from .customer_helpers import created
from .money_helpers import (
    CONCURRENT,
    approved,
    available,
    execute,
    expected,
    external,
    funded,
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
    invalid_fields,
    with_webhook_id,
)

QUOTE_CHECKS = FaultChecks()
check = QUOTE_CHECKS.add


@check("execute-double-debit")
def _(sandbox: RunningSandbox, receiver: WebhookReceiver) -> None:
    with sandbox.client() as client:
        holder = funded(client, 50_000)
        body = quote(client, holder.account_id(), external(client, holder.id)["id"])
        execute(client, body["id"])
        execute(client, body["id"])  # 200 instead of 409
        assert available(client, holder.id) == 30_000


@check("fee-on-receiving-side")
def _(sandbox: RunningSandbox, receiver: WebhookReceiver) -> None:
    f = Fraction(3, 1000)
    with sandbox.client() as client:
        holder = approved(client)
        eur = external(client, holder.id, "IBAN_ACCOUNT")["id"]
        received = quote(client, holder.account_id(), eur, amount=100_000, side="RECEIVING")
        net = math.ceil(Fraction(100_000) / Fraction("0.92"))
        assert received["totalSendingAmount"] == net + 50 + round(net * f)
        right = expected("RECEIVING", 100_000, "0.92", (2, 2), cross=True)
        assert received["totalSendingAmount"] < right["totalSendingAmount"]
        sent = quote(client, holder.account_id(), eur, amount=1_000_000)
        net = math.floor(Fraction(1_000_000 - 50) / (1 + f))
        assert sent["feesIncluded"] == 1_000_000 - net
        assert sent["totalReceivingAmount"] == math.floor(net * Fraction("0.92"))
        usd = external(client, holder.id)["id"]  # f is 0 within one currency: no change
        assert quote(client, holder.account_id(), usd)["feesIncluded"] == 0


@check("same-currency-rate-not-one")
def _(sandbox: RunningSandbox, receiver: WebhookReceiver) -> None:
    with sandbox.client() as client:
        holder = approved(client)
        same = quote(client, holder.account_id(), external(client, holder.id)["id"])
        assert same["exchangeRate"] == 1.01
        assert same["totalReceivingAmount"] == 10_100 and same["totalSendingAmount"] == 10_000
        eur = external(client, holder.id, "IBAN_ACCOUNT")["id"]
        assert quote(client, holder.account_id(), eur)["exchangeRate"] == 0.92


@check("execute-after-expiry")
def _(sandbox: RunningSandbox, receiver: WebhookReceiver) -> None:
    with sandbox.client() as client:
        holder = funded(client, 50_000)
        body = quote(client, holder.account_id(), external(client, holder.id)["id"])
        wait_past(body["expiresAt"])
        assert execute(client, body["id"])["status"] == "PROCESSING"
        assert available(client, holder.id) == 40_000


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


@check("quote-payment-rail-ignored")
def _(sandbox: RunningSandbox, receiver: WebhookReceiver) -> None:
    with sandbox.client() as client:
        holder = approved(client)
        payee = external(client, holder.id)["id"]
        for rail in ("WIRE", "RTP"):
            body = quote_body(holder.account_id(), payee)
            body["destination"]["paymentRail"] = rail
            sent = created(client.post("/quotes", json=body))
            assert sent["destination"]["paymentRail"] == "ACH"  # the default, not the rail sent
            paid = transaction(client, sent["transactionId"])
            assert paid["destination"]["paymentRail"] == "ACH"


@check("quote-purpose-refused-unnamed")
def _(sandbox: RunningSandbox, receiver: WebhookReceiver) -> None:
    with sandbox.client() as client:
        holder = approved(client)
        payee = external(client, holder.id)["id"]
        body = quote_body(holder.account_id(), payee, purposeOfPayment="GOODS_AND_SERVICES")
        assert invalid_fields(client.post("/quotes", json=body)) == {"destination"}
        assert quote(client, holder.account_id(), payee)["status"] == "PENDING"  # without it


@check("quote-description-ignored")
def _(sandbox: RunningSandbox, receiver: WebhookReceiver) -> None:
    with sandbox.client() as client:
        holder = approved(client)
        payee = external(client, holder.id)["id"]
        sent = quote(client, holder.account_id(), payee, description="Invoice 7")
        assert "description" not in sent
        assert "description" not in transaction(client, sent["transactionId"])


@check("transactions-status-filter-ignored")
def _(sandbox: RunningSandbox, receiver: WebhookReceiver) -> None:
    with sandbox.client() as client:
        holder = funded(client, 50_000)
        payee = external(client, holder.id)["id"]
        execute(client, quote(client, holder.account_id(), payee)["id"])
        pending = quote(client, holder.account_id(), payee)["transactionId"]
        query = {"customerId": holder.id, "status": "COMPLETED"}
        listed = client.get("/transactions", params=query).json()["data"]
        assert pending in {t["id"] for t in listed}
        assert {t["status"] for t in listed} >= {"PENDING"}


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
