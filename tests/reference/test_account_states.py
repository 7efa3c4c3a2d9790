"""Internal-account states after provisioning in the reference (SANDBOX.md,
"Internal-account states"): the sandbox triggers, the transitions they allow, and that
only ACTIVE accounts send or receive."""

from __future__ import annotations

import httpx
import pytest

from .customer_helpers import created, individual, submit, upload
from .money_helpers import (
    approved,
    available,
    error_code,
    execute,
    external,
    fund,
    funded,
    internal_accounts,
    quote,
    quote_body,
)


def _change(client: httpx.Client, account_id: str, action: str) -> httpx.Response:
    return client.post(f"/sandbox/internal-accounts/{account_id}/{action}")


def _status(client: httpx.Client, customer_id: str, code: str = "USD") -> str:
    return str(internal_accounts(client, customer_id)[code]["status"])


@pytest.mark.parametrize(("action", "status"), [("freeze", "FROZEN"), ("close", "CLOSED")])
def test_an_active_account_is_frozen_or_closed_once(
    client: httpx.Client, action: str, status: str
) -> None:
    holder = approved(client)
    answer = _change(client, holder.account_id(), action)
    assert answer.status_code == 200, answer.text
    assert answer.json()["status"] == status
    assert answer.json()["updatedAt"] > holder.accounts["USD"]["updatedAt"]
    assert _status(client, holder.id) == status
    for other in ("freeze", "close", "fail-provisioning"):  # only the stated transitions
        assert error_code(_change(client, holder.account_id(), other), 409) == (
            "ACCOUNT_STATE_CONFLICT"
        )


def test_provisioning_fails_only_for_a_pending_account_which_stays_failed(
    client: httpx.Client,
) -> None:
    customer = created(client.post("/customers", json=individual("Ann Lee")))
    account_id = internal_accounts(client, customer["id"])["USD"]["id"]
    assert error_code(_change(client, account_id, "freeze"), 409) == "ACCOUNT_STATE_CONFLICT"
    answer = _change(client, account_id, "fail-provisioning")
    assert answer.status_code == 200 and answer.json()["status"] == "FAILED", answer.text
    created(upload(client, customer["id"]))
    assert submit(client, customer["id"])["verificationStatus"] == "APPROVED"
    accounts = internal_accounts(client, customer["id"])
    assert (accounts["USD"]["status"], accounts["USDC"]["status"]) == ("FAILED", "ACTIVE")
    refused = client.post(f"/sandbox/internal-accounts/{account_id}/fund", json={"amount": 100})
    assert error_code(refused, 409) == "ACCOUNT_CANNOT_RECEIVE"
    assert available(client, customer["id"]) == 0


def test_an_unknown_account_is_404(client: httpx.Client) -> None:
    missing = "InternalAccount:00000000-0000-0000-0000-000000000000"
    assert _change(client, missing, "freeze").status_code == 404


def test_a_frozen_account_is_refused_as_a_source_when_quoting_and_executing(
    client: httpx.Client,
) -> None:
    holder = funded(client, 50_000)
    destination = external(client, holder.id)["id"]
    earlier = quote(client, holder.account_id(), destination)
    assert _change(client, holder.account_id(), "freeze").status_code == 200
    refused = client.post("/quotes", json=quote_body(holder.account_id(), destination))
    assert error_code(refused, 409) == "CONFLICT"
    assert "source.accountId" in refused.text
    assert error_code(client.post(f"/quotes/{earlier['id']}/execute"), 409) == (
        "ACCOUNT_NOT_ACTIVE"
    )
    assert available(client, holder.id) == 50_000


def test_a_closed_account_receives_nothing(client: httpx.Client) -> None:
    holder = funded(client, 50_000)
    crypto = holder.account_id("USDC")
    fund(client, crypto, 100_000_000)
    earlier = quote(client, crypto, holder.account_id(), amount=10_000_000)
    assert _change(client, holder.account_id(), "close").status_code == 200
    refused = client.post(
        "/quotes", json=quote_body(crypto, holder.account_id(), amount=10_000_000)
    )
    assert error_code(refused, 409) == "CONFLICT"
    assert "destination.accountId" in refused.text
    assert error_code(client.post(f"/quotes/{earlier['id']}/execute"), 409) == (
        "ACCOUNT_NOT_ACTIVE"
    )
    funding = client.post(
        f"/sandbox/internal-accounts/{holder.account_id()}/fund", json={"amount": 1}
    )
    assert error_code(funding, 409) == "ACCOUNT_CANNOT_RECEIVE"
    incoming = client.post(
        "/sandbox/uma/incoming-payments", json={"accountId": holder.account_id(), "amount": 1}
    )
    assert error_code(incoming, 409) == "ACCOUNT_CANNOT_RECEIVE"
    assert available(client, holder.id) == 50_000  # the balance stays where it was
    assert available(client, holder.id, "USDC") == 100_000_000


def test_a_sweep_to_a_frozen_destination_leaves_the_money_in_place(client: httpx.Client) -> None:
    holder = approved(client)
    destination = holder.account_id()
    rule = {"destinationAccountId": destination}
    body = {"type": "RULE_BASED", "customerId": holder.id, "sweepRule": rule}
    rule_based = created(client.post("/internal-accounts", json=body))
    assert _change(client, destination, "freeze").status_code == 200
    swept = fund(client, rule_based["id"], 700)
    assert swept["availableBalance"]["amount"] == 700
    listed = client.get("/customers/internal-accounts", params={"customerId": holder.id}).json()
    frozen = [a for a in listed["data"] if a["id"] == destination]
    assert frozen[0]["availableBalance"]["amount"] == 0


def test_an_executed_payment_still_settles_when_nothing_changed(client: httpx.Client) -> None:
    holder = funded(client, 50_000)
    body = quote(client, holder.account_id(), external(client, holder.id)["id"])
    assert execute(client, body["id"])["status"] == "PROCESSING"
    assert available(client, holder.id) == 40_000
