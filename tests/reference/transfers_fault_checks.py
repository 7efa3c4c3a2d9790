"""Checks for the fault modes of just-in-time funding, UMA, on-chain transfers and the
deprecated transfer endpoints; ``test_faults`` adds them to its ``CHECKS``."""

from __future__ import annotations

from .customer_helpers import created
from .money_helpers import approved, available, external, funded, quote, transaction
from .reference_helpers import FaultChecks, RunningSandbox, WebhookReceiver
from .test_jit_uma_onchain import jit_body, uma_body

TRANSFER_CHECKS = FaultChecks()
check = TRANSFER_CHECKS.add


@check("jit-quote-executable")
def _(sandbox: RunningSandbox, receiver: WebhookReceiver) -> None:
    with sandbox.client() as client:
        holder = approved(client)
        jit = created(client.post("/quotes", json=jit_body(holder.id, holder.account_id())))
        assert client.post(f"/quotes/{jit['id']}/execute").status_code == 200
        assert available(client, holder.id) == jit["totalReceivingAmount"]


@check("jit-immediate-execute-accepted")
def _(sandbox: RunningSandbox, receiver: WebhookReceiver) -> None:
    with sandbox.client() as client:
        holder = approved(client)
        body = jit_body(holder.id, holder.account_id(), immediatelyExecute=True)
        assert created(client.post("/quotes", json=body))["status"] == "COMPLETED"


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
