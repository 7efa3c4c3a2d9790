"""Ownership verification of external accounts in the reference (SANDBOX.md,
"Rule-based accounts, ownership verification, payout scenarios and incoming payments")."""

from __future__ import annotations

from typing import Any

import httpx

from .money_helpers import external, funded, quote_body

BASE = "/customers/external-accounts"


def _prove(client: httpx.Client, account: dict[str, Any], *, valid: bool) -> httpx.Response:
    challenge = client.post(f"{BASE}/{account['id']}/challenge")
    assert challenge.status_code == 200, challenge.text
    payload = challenge.json()["payloadToSign"] + ("" if valid else "!")
    signed = client.post(
        f"/sandbox/external-accounts/{account['id']}/sign", json={"payload": payload}
    )
    return client.post(f"{BASE}/{account['id']}/verify", json=signed.json())


def test_a_008_account_starts_pending_and_a_valid_signature_activates_it(
    client: httpx.Client,
) -> None:
    holder = funded(client)
    account = external(client, holder.id, suffix="008")
    assert account["status"] == "PENDING_OWNERSHIP_VERIFICATION"
    verified = _prove(client, account, valid=True)
    assert verified.status_code == 200 and verified.json()["status"] == "ACTIVE"
    again = client.post(f"{BASE}/{account['id']}/challenge")
    assert again.status_code == 409


def test_a_failed_attempt_leaves_it_unverified(client: httpx.Client) -> None:
    holder = funded(client)
    account = external(client, holder.id, suffix="008")
    failed = _prove(client, account, valid=False)
    assert failed.status_code == 200 and failed.json()["status"] == "UNVERIFIED"
    no_challenge = client.post(f"{BASE}/{account['id']}/verify", json={"signature": "AAAA"})
    assert no_challenge.status_code == 409


def test_a_pending_account_receives_below_the_threshold_only(client: httpx.Client) -> None:
    holder = funded(client, amount=500_000)
    account = external(client, holder.id, suffix="008")
    small = client.post("/quotes", json=quote_body(holder.account_id(), account["id"], 10_000))
    assert small.status_code == 201, small.text
    large = client.post("/quotes", json=quote_body(holder.account_id(), account["id"], 200_000))
    assert large.status_code == 409  # the account's state: ownership not verified yet
    assert large.json()["details"]["errors"][0]["constraint"] == "OWNERSHIP_NOT_VERIFIED"
