"""Payout scenarios of the reference: 003 slow and 1xx beneficiary-name outcomes
(SANDBOX.md, "Rule-based accounts, ownership verification, payout scenarios and
incoming payments")."""

from __future__ import annotations

import time

import httpx

from .money_helpers import available, execute, external, funded, quote, transaction


def test_a_slow_payout_stays_processing_then_completes(client: httpx.Client) -> None:
    holder = funded(client)
    destination = external(client, holder.id, suffix="003")["id"]
    executed = execute(client, quote(client, holder.account_id(), destination)["id"])
    assert transaction(client, executed["transactionId"])["status"] == "PROCESSING"
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        settled = transaction(client, executed["transactionId"])
        if settled["status"] != "PROCESSING":
            break
        time.sleep(0.1)
    assert settled["status"] == "COMPLETED" and settled["settledAt"]
    assert client.get(f"/quotes/{executed['id']}").json()["status"] == "COMPLETED"


def test_beneficiary_name_outcomes(client: httpx.Client) -> None:
    holder = funded(client)
    before = available(client, holder.id)
    outcomes = {}
    for suffix in ("100", "101", "102"):
        destination = external(client, holder.id, suffix=suffix)["id"]
        executed = execute(client, quote(client, holder.account_id(), destination)["id"])
        found = transaction(client, executed["transactionId"])
        outcomes[suffix] = (found["status"], found.get("failureReason"))
    assert outcomes == {
        "100": ("COMPLETED", None),
        "101": ("COMPLETED", None),
        "102": ("FAILED", "ACCOUNT_INVALID"),
    }
    assert before - available(client, holder.id) == 2 * 10_000
