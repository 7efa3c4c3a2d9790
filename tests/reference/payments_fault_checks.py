"""Checks for the fault modes of ``reference/faults/payments.py``: payments: quote pricing and
execution, funding, UMA, on-chain, pull sources; ``test_faults`` adds them to its
``CHECKS``."""

from __future__ import annotations

import math
import time
from fractions import Fraction

from reference.payments.limits import DAILY_LIMIT_USD_CENTS, SIZE_LIMIT_USD_CENTS

from .card_helpers import authorize, card_for, card_rows
from .customer_helpers import created
from .money_helpers import (
    approved,
    available,
    execute,
    expected,
    external,
    funded,
    quote,
    quote_body,
    transaction,
)
from .reference_helpers import (
    FaultChecks,
    RunningSandbox,
    WebhookReceiver,
    invalid_fields,
)
from .test_jit_uma_onchain import jit_body, uma_body

PAYMENTS_CHECKS = FaultChecks()
check = PAYMENTS_CHECKS.add


@check("incoming-refund-event-missing")
def _(sandbox: RunningSandbox, receiver: WebhookReceiver) -> None:
    with sandbox.client() as client:
        client.patch("/config", json={"webhookEndpoint": receiver.url})
        holder = approved(client)
        path = f"/sandbox/internal-accounts/{holder.account_id()}/returned-deposit"
        assert client.post(path, json={"amount": 100}).json()["refund"]["status"] == "COMPLETED"
        client.post("/sandbox/webhooks/test")
        receiver.wait_for(lambda ds: any(b"TEST" in d.body for d in ds))
        assert not [d for d in receiver.deliveries if b"INCOMING_PAYMENT" in d.body]


@check("slow-payment-never-settles")
def _(sandbox: RunningSandbox, receiver: WebhookReceiver) -> None:
    with sandbox.client() as client:
        holder = funded(client)
        destination = external(client, holder.id, suffix="003")["id"]
        executed = execute(client, quote(client, holder.account_id(), destination)["id"])
        time.sleep(2.0)  # past the 1 s a slow payment takes when the fault is off
        assert transaction(client, executed["transactionId"])["status"] == "PROCESSING"


@check("ownership-pending-unusable")
def _(sandbox: RunningSandbox, receiver: WebhookReceiver) -> None:
    with sandbox.client() as client:
        holder = funded(client)
        account = external(client, holder.id, suffix="008")
        response = client.post("/quotes", json=quote_body(holder.account_id(), account["id"], 100))
        assert response.status_code == 409  # refused for the account's state


@check("card-id-filter-prefix-only")
def _(sandbox: RunningSandbox, receiver: WebhookReceiver) -> None:
    with sandbox.client() as client:
        _, card = card_for(client)
        authorize(client, card["id"], 100)
        assert card_rows(client, card["id"].split(":", 1)[1]) == []
        assert len(card_rows(client, card["id"])) == 1


@check("size-limit-unenforced")
def _(sandbox: RunningSandbox, receiver: WebhookReceiver) -> None:
    with sandbox.client() as client:
        holder = funded(client, 2 * SIZE_LIMIT_USD_CENTS)
        destination = external(client, holder.id)["id"]
        over = quote(client, holder.account_id(), destination, amount=SIZE_LIMIT_USD_CENTS + 1)
        execute(client, over["id"])
        assert available(client, holder.id) == SIZE_LIMIT_USD_CENTS - 1


@check("daily-limit-unenforced")
def _(sandbox: RunningSandbox, receiver: WebhookReceiver) -> None:
    with sandbox.client() as client:
        holder = funded(client, DAILY_LIMIT_USD_CENTS + SIZE_LIMIT_USD_CENTS)
        destination = external(client, holder.id)["id"]
        for _ in range(DAILY_LIMIT_USD_CENTS // SIZE_LIMIT_USD_CENTS + 1):
            body = quote(client, holder.account_id(), destination, amount=SIZE_LIMIT_USD_CENTS)
            execute(client, body["id"])
        assert available(client, holder.id) == 0


@check("pending-reason-missing")
def _(sandbox: RunningSandbox, receiver: WebhookReceiver) -> None:
    with sandbox.client() as client:
        holder = funded(client, 50_000)
        body = quote(client, holder.account_id(), external(client, holder.id, suffix="077")["id"])
        execute(client, body["id"])
        held = transaction(client, body["transactionId"])
        assert held["status"] == "PROCESSING" and held.get("pendingReason") is None


@check("pull-fee-on-receiving-side")
def _(sandbox: RunningSandbox, receiver: WebhookReceiver) -> None:
    with sandbox.client() as client:
        holder = approved(client, currencies=["USD", "EUR"])
        pulled = external(client, holder.id, "US_ACCOUNT")["id"]
        body = quote_body(pulled, holder.account_id("EUR"), amount=2_500_000)
        details = created(client.post("/quotes", json=body))["rateDetails"]
        exact = 2_500_000 * Fraction(str(details["serviceApiVariableFeeRate"]))
        assert abs(details["serviceApiVariableFeeAmount"] - exact) > 1
        inside = external(client, holder.id, "IBAN_ACCOUNT")["id"]
        funded = holder.account_id("USD")
        client.post(f"/sandbox/internal-accounts/{funded}/fund", json={"amount": 3_000_000})
        body = quote_body(funded, inside, amount=2_500_000)
        details = created(client.post("/quotes", json=body))["rateDetails"]
        assert abs(details["serviceApiVariableFeeAmount"] - exact) <= 1  # only pulls


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


@check("sandbox-send-any-currency")
def _(sandbox: RunningSandbox, receiver: WebhookReceiver) -> None:
    with sandbox.client() as client:
        holder = approved(client)
        jit = created(client.post("/quotes", json=jit_body(holder.id, holder.account_id())))
        sent = client.post("/sandbox/send", json={"quoteId": jit["id"], "currencyCode": "EUR"})
        assert sent.status_code == 200, sent.text


@check("jit-reference-ignored")
def _(sandbox: RunningSandbox, receiver: WebhookReceiver) -> None:
    with sandbox.client() as client:
        holder = approved(client)
        jit = created(client.post("/quotes", json=jit_body(holder.id, holder.account_id())))
        body = {"quoteId": jit["id"], "currencyCode": "USD", "reference": "JIT-WRONG"}
        assert client.post("/sandbox/realtime-funding/payments", json=body).json()["matched"]


@check("onchain-hash-missing")
def _(sandbox: RunningSandbox, receiver: WebhookReceiver) -> None:
    with sandbox.client() as client:
        holder = funded(client)
        wallet = external(client, holder.id, "WALLET")["id"]
        paid = quote(client, holder.account_id(), wallet)
        client.post(f"/quotes/{paid['id']}/execute").raise_for_status()
        settled = transaction(client, paid["transactionId"])
        assert settled["status"] == "COMPLETED"
        assert "onChainTransaction" not in settled["destination"]


@check("uma-scenario-ignored")
def _(sandbox: RunningSandbox, receiver: WebhookReceiver) -> None:
    with sandbox.client() as client:
        holder = funded(client)
        slow = created(client.post("/quotes", json=uma_body(holder.account_id(), "$b005@v.io")))
        client.post(f"/quotes/{slow['id']}/execute").raise_for_status()
        assert transaction(client, slow["transactionId"])["status"] == "COMPLETED"


@check("uma-limits-ignored")
def _(sandbox: RunningSandbox, receiver: WebhookReceiver) -> None:
    with sandbox.client() as client:
        holder = funded(client)
        entries = client.get("/config").json()["supportedCurrencies"]
        for entry in entries:
            entry.pop("providerRequiredCustomerFields", None)
            if entry["currencyCode"] == "USD":
                entry["maxAmount"] = 50_000
        patched = client.patch("/config", json={"supportedCurrencies": entries})
        assert patched.status_code == 200, patched.text
        body = uma_body(holder.account_id(), "$bob@vasp.example")
        body["lockedCurrencyAmount"] = 50_001
        created(client.post("/quotes", json=body))


@check("uma-incoming-no-transaction")
def _(sandbox: RunningSandbox, receiver: WebhookReceiver) -> None:
    with sandbox.client() as client:
        holder = approved(client)
        body = {"accountId": holder.account_id(), "amount": 900}
        incoming = created(client.post("/sandbox/uma/incoming-payments", json=body))
        assert available(client, holder.id) == 900
        assert client.get(f"/transactions/{incoming['id']}").status_code == 404


@check("transfer-out-gone")
def _(sandbox: RunningSandbox, receiver: WebhookReceiver) -> None:
    with sandbox.client() as client:
        holder = funded(client)
        outside = external(client, holder.id)["id"]
        body = {
            "source": {"accountId": holder.account_id()},
            "destination": {"accountId": outside},
            "amount": 100,
        }
        assert client.post("/transfer-out", json=body).status_code == 404
