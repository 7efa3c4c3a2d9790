"""Rule-based accounts of the reference (SANDBOX.md, "Rule-based accounts, ownership
verification, payout scenarios and incoming payments"): creation, idempotency, the refusals
and the sweep on funding."""

from __future__ import annotations

import uuid
from typing import Any

import httpx

from .customer_helpers import created
from .money_helpers import approved, fund

PATH = "/internal-accounts"


def _accounts(client: httpx.Client, customer_id: str) -> dict[str, dict[str, Any]]:
    response = client.get("/customers/internal-accounts", params={"customerId": customer_id})
    assert response.status_code == 200, response.text
    return {a["id"]: a for a in response.json()["data"]}


def _body(customer_id: str, destination: str, **extra: Any) -> dict[str, Any]:
    return {
        "type": "RULE_BASED",
        "currency": "USD",
        "customerId": customer_id,
        "sweepRule": {"destinationAccountId": destination},
        **extra,
    }


def _holder(client: httpx.Client) -> tuple[str, str]:
    holder = approved(client)
    return holder.id, holder.account_id("USD")


def test_a_rule_based_account_has_its_rule_label_and_own_number(client: httpx.Client) -> None:
    customer_id, usd = _holder(client)
    account = created(client.post(PATH, json=_body(customer_id, usd, label="rent")))
    assert account["type"] == "RULE_BASED" and account["status"] == "ACTIVE"
    assert account["currency"] == "USD" and account["label"] == "rent"
    assert account["sweepRule"] == {"destinationAccountId": usd}
    listed = _accounts(client, customer_id)
    number = account["fundingPaymentInstructions"][0]["accountOrWalletInfo"]["accountNumber"]
    other = listed[usd]["fundingPaymentInstructions"][0]["accountOrWalletInfo"]["accountNumber"]
    assert number != other and listed[account["id"]]["sweepRule"] == account["sweepRule"]


def test_the_same_key_replays_and_a_different_body_conflicts(client: httpx.Client) -> None:
    customer_id, usd = _holder(client)
    key = {"Idempotency-Key": f"k-{uuid.uuid4()}"}
    first = client.post(PATH, json=_body(customer_id, usd), headers=key)
    again = client.post(PATH, json=_body(customer_id, usd), headers=key)
    assert (first.status_code, again.status_code) == (201, 200)
    assert again.json()["id"] == first.json()["id"]
    other = client.post(PATH, json=_body(customer_id, usd, label="x"), headers=key)
    assert other.status_code == 409 and other.json()["code"] == "IDEMPOTENCY_KEY_REUSED"
    unkeyed = [client.post(PATH, json=_body(customer_id, usd)).json()["id"] for _ in range(2)]
    assert len({first.json()["id"], *unkeyed}) == 3


def test_every_invalid_field_is_named_at_once(client: httpx.Client) -> None:
    response = client.post(
        PATH,
        json={"type": "INTERNAL_FIAT", "currency": "EUR", "label": "x" * 256},
        headers={"Idempotency-Key": "k" * 256},
    )
    assert response.status_code == 400
    fields = {e["field"] for e in response.json()["details"]["errors"]}
    assert fields == {"Idempotency-Key", "type", "currency", "customerId", "label", "sweepRule"}


def test_businesses_and_other_platforms_are_refused(
    client: httpx.Client, second_client: httpx.Client
) -> None:
    business = client.post(
        "/customers",
        json={
            "customerType": "BUSINESS",
            "businessInfo": {
                "legalName": "Acme",
                "country": "US",
                "taxId": "12-3456789",
                "incorporatedOn": "2010-01-01",
            },
        },
    ).json()
    _, usd = _holder(client)  # a real destination: an unknown one would answer 404 first
    refused = client.post(PATH, json=_body(business["id"], usd))
    errors = {e["field"]: e["constraint"] for e in refused.json()["details"]["errors"]}
    assert refused.status_code == 409 and errors["customerId"] == "INDIVIDUALS_ONLY"
    off = second_client.post(PATH, json=_body(business["id"], usd))
    assert off.status_code == 403 and off.json()["code"] == "FEATURE_NOT_ENABLED"


def test_funding_sweeps_to_the_destination(client: httpx.Client) -> None:
    customer_id, usd = _holder(client)
    account = created(client.post(PATH, json=_body(customer_id, usd)))
    funded = fund(client, account["id"], 12_345)
    assert funded["totalBalance"]["amount"] == 0
    listed = _accounts(client, customer_id)
    assert listed[usd]["totalBalance"]["amount"] == 12_345
