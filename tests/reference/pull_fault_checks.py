"""Checks for the fault modes of pull sources (their scenarios and their fee arithmetic);
``test_faults`` adds them to its ``CHECKS``."""

from __future__ import annotations

from fractions import Fraction

from .customer_helpers import created
from .money_helpers import approved, external, quote_body, transaction
from .reference_helpers import FaultChecks, RunningSandbox, WebhookReceiver

PULL_CHECKS = FaultChecks()
check = PULL_CHECKS.add


@check("pull-source-scenario-ignored")
def _(sandbox: RunningSandbox, receiver: WebhookReceiver) -> None:
    with sandbox.client() as client:
        holder = approved(client)
        pulled = external(client, holder.id, "US_ACCOUNT", suffix="099")["id"]
        quote = created(client.post("/quotes", json=quote_body(pulled, holder.account_id())))
        client.post(f"/quotes/{quote['id']}/execute").raise_for_status()
        assert transaction(client, quote["transactionId"])["status"] == "COMPLETED"


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
