"""Checks for the money-movement faults that break a rule on one path only (a completed
transaction's failureReason, execute on a just-in-time quote, just-in-time instructions
outside USD, card statuses with type=CARD, authorize for customers outside SCA);
``test_faults`` adds them to its ``CHECKS``.

Each check also shows the path the fault leaves right, since that is what made the older
suite checks miss it.
"""

from __future__ import annotations

from .customer_helpers import created
from .money_helpers import approved, available, execute, funded, internal_accounts, quote
from .reference_helpers import FaultChecks, RunningSandbox, WebhookReceiver
from .test_jit_uma_onchain import jit_body

MONEY_RULE_CHECKS = FaultChecks()
check = MONEY_RULE_CHECKS.add


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
