"""Checks for the fault modes of ``reference/faults/sca.py``: strong customer authentication;
``test_faults`` adds them to its ``CHECKS``."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from .money_helpers import (
    approved,
    error_code,
    execute,
    external,
    fund,
    quote,
    transaction,
    wait_past,
)
from .reference_helpers import FaultChecks, RunningSandbox, WebhookReceiver
from .test_sca import authorize, challenged, eu_holder, jit_body, login

SCA_CHECKS = FaultChecks()
check = SCA_CHECKS.add
# start-up flags a check needs besides its fault
SCA_FLAGS: dict[str, tuple[str, ...]] = {"sca-expiry-wrong-reason": ("--quote-lifetime", "1")}


def _eu_quote(client):  # a funded EU customer's EUR quote, not yet executed
    holder = eu_holder(client)
    destination = external(client, holder.id, "IBAN_ACCOUNT")["id"]
    return holder, quote(client, holder.account_id("EUR"), destination, amount=10_000)


@check("sca-challenge-skipped")
def _(sandbox: RunningSandbox, receiver: WebhookReceiver) -> None:
    with sandbox.client() as client:
        _, body = _eu_quote(client)
        assert execute(client, body["id"])["status"] == "PROCESSING"


@check("sca-reexecute-accepted")
def _(sandbox: RunningSandbox, receiver: WebhookReceiver) -> None:
    with sandbox.client() as client:
        holder = eu_holder(client)
        answered = challenged(client, holder)
        assert execute(client, answered["id"])["status"] == "PROCESSING"


@check("sca-wrong-code-accepted")
def _(sandbox: RunningSandbox, receiver: WebhookReceiver) -> None:
    with sandbox.client() as client:
        holder = eu_holder(client)
        login(client, holder.id)
        answered = challenged(client, holder)
        assert authorize(client, answered["id"], code="123456").status_code == 200


@check("sca-session-refusal-403")
def _(sandbox: RunningSandbox, receiver: WebhookReceiver) -> None:
    with sandbox.client() as client:
        answered = challenged(client, eu_holder(client))
        assert authorize(client, answered["id"]).status_code == 403


@check("sca-expiry-wrong-reason")
def _(sandbox: RunningSandbox, receiver: WebhookReceiver) -> None:
    with sandbox.client() as client:
        answered = challenged(client, eu_holder(client))
        wait_past(answered["scaChallenge"]["expiresAt"])
        failed = transaction(client, answered["transactionId"])
        assert failed["failureReason"] == "QUOTE_EXECUTION_FAILED"


@check("sca-non-sca-endpoint-200")
def _(sandbox: RunningSandbox, receiver: WebhookReceiver) -> None:
    with sandbox.client() as client:
        us = approved(client, currencies=["EUR"])
        assert login(client, us.id).status_code == 200


@check("sca-challenge-everyone")
def _(sandbox: RunningSandbox, receiver: WebhookReceiver) -> None:
    with sandbox.client() as client:
        us = approved(client, currencies=["EUR"])
        fund(client, us.account_id("EUR"), 50_000)
        destination = external(client, us.id, "IBAN_ACCOUNT")["id"]
        body = quote(client, us.account_id("EUR"), destination, amount=1_000)
        assert execute(client, body["id"])["status"] == "PENDING_AUTHORIZATION"
        assert error_code(client.post(f"/quotes/{body['id']}/execute"), 409)


@check("sca-session-short")
def _(sandbox: RunningSandbox, receiver: WebhookReceiver) -> None:
    with sandbox.client() as client:
        holder = eu_holder(client)
        expires = datetime.fromisoformat(login(client, holder.id).json()["sessionExpiresAt"])
        assert expires - datetime.now(UTC) < timedelta(days=31)


@check("sca-jit-instructions-shown")
def _(sandbox: RunningSandbox, receiver: WebhookReceiver) -> None:
    with sandbox.client() as client:
        holder = eu_holder(client)
        destination = external(client, holder.id, "IBAN_ACCOUNT")["id"]
        created = client.post("/quotes", json=jit_body(holder.id, destination)).json()
        assert created["status"] == "PENDING_AUTHORIZATION"
        assert created["paymentInstructions"]
