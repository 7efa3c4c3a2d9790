"""Checks for the fault modes of internal-account states; ``test_faults`` adds them to its
``CHECKS``."""

from __future__ import annotations

from .customer_helpers import created, individual
from .money_helpers import available, execute, external, fund, funded, internal_accounts, quote
from .reference_helpers import FaultChecks, RunningSandbox, WebhookReceiver

STATE_CHECKS = FaultChecks()
check = STATE_CHECKS.add


@check("frozen-account-sends")
def _(sandbox: RunningSandbox, receiver: WebhookReceiver) -> None:
    with sandbox.client() as client:
        holder = funded(client, 50_000)
        destination = external(client, holder.id)["id"]
        earlier = quote(client, holder.account_id(), destination)
        client.post(f"/sandbox/internal-accounts/{holder.account_id()}/freeze").raise_for_status()
        execute(client, earlier["id"])
        execute(client, quote(client, holder.account_id(), destination)["id"])
        assert available(client, holder.id) == 30_000


@check("closed-account-receives")
def _(sandbox: RunningSandbox, receiver: WebhookReceiver) -> None:
    with sandbox.client() as client:
        holder = funded(client, 50_000)
        client.post(f"/sandbox/internal-accounts/{holder.account_id()}/close").raise_for_status()
        fund(client, holder.account_id(), 700)
        assert available(client, holder.id) == 50_700


@check("provisioning-failure-active")
def _(sandbox: RunningSandbox, receiver: WebhookReceiver) -> None:
    with sandbox.client() as client:
        customer = created(client.post("/customers", json=individual("Ann Lee")))
        account_id = internal_accounts(client, customer["id"])["USD"]["id"]
        answer = client.post(f"/sandbox/internal-accounts/{account_id}/fail-provisioning")
        assert answer.status_code == 200 and answer.json()["status"] == "ACTIVE", answer.text
