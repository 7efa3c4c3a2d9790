"""Internal accounts (created with customers, activated on approval, the platform's own,
balances, funding instructions, label), sandbox funding, and external accounts."""

from __future__ import annotations

import re

import httpx
import pytest

from .customer_helpers import (
    complete_individual,
    constraints,
    created,
    individual,
    missing_records,
    submit,
)
from .money_helpers import (
    ACCOUNT_INFO,
    CURRENCY_OF,
    approved,
    external,
    fund,
    internal_accounts,
)

ACCOUNT_ID = re.compile(r"InternalAccount:[0-9a-f-]{36}")


def test_a_new_customer_gets_pending_accounts(client: httpx.Client) -> None:
    customer = created(client.post("/customers", json=individual()))
    accounts = internal_accounts(client, customer["id"])
    assert set(accounts) == {"USD", "USDC"}  # USD when currencies lists none
    assert accounts["USD"]["type"] == "INTERNAL_FIAT"
    assert accounts["USDC"]["type"] == "INTERNAL_CRYPTO"
    for account in accounts.values():
        assert ACCOUNT_ID.fullmatch(account["id"])
        assert account["status"] == "PENDING"
        assert account["customerId"] == customer["id"]
        assert account["label"] is None and account["sweepRule"] is None
        assert account["availableBalance"]["amount"] == account["totalBalance"]["amount"] == 0
        assert account["createdAt"] and account["updatedAt"]


def test_one_fiat_account_per_currency_and_patch_adds_new_ones(client: httpx.Client) -> None:
    customer = created(client.post("/customers", json=individual(currencies=["EUR"])))
    assert set(internal_accounts(client, customer["id"])) == {"EUR", "USDC"}
    patched = client.patch(f"/customers/{customer['id']}", json={"currencies": ["EUR", "USD"]})
    assert patched.status_code == 200, patched.text
    assert set(internal_accounts(client, customer["id"])) == {"EUR", "USD", "USDC"}


def test_approval_activates_the_accounts(client: httpx.Client) -> None:
    pending = complete_individual(client, "Ann Lee 001")
    submit(client, pending["id"])  # PENDING: manual review
    assert {a["status"] for a in internal_accounts(client, pending["id"]).values()} == {"PENDING"}
    holder = approved(client)
    assert {a["status"] for a in holder.accounts.values()} == {"ACTIVE"}


def test_approved_at_creation_means_active_at_creation(regulated_client: httpx.Client) -> None:
    customer = created(regulated_client.post("/customers", json=individual("Ann Lee")))
    assert customer["kycStatus"] == "APPROVED"
    statuses = {a["status"] for a in internal_accounts(regulated_client, customer["id"]).values()}
    assert statuses == {"ACTIVE"}


def test_the_platform_owns_one_usd_account(client: httpx.Client) -> None:
    [account] = client.get("/customers/internal-accounts").json()["data"]
    assert account["customerId"] is None
    assert (account["type"], account["currency"], account["status"]) == (
        "INTERNAL_FIAT",
        "USD",
        "ACTIVE",
    )


def test_list_needs_a_customer_of_the_platform(
    client: httpx.Client, second_client: httpx.Client
) -> None:
    customer = created(client.post("/customers", json=individual()))
    for who, customer_id in ((client, "Customer:nope"), (second_client, customer["id"])):
        response = who.get("/customers/internal-accounts", params={"customerId": customer_id})
        assert response.status_code == 404
        assert response.json()["code"] == "NOT_FOUND"


def test_funding_instructions_by_account_kind(client: httpx.Client) -> None:
    holder = approved(client, currencies=["USD", "EUR"])
    kinds = {
        code: account["fundingPaymentInstructions"][0]["accountOrWalletInfo"]
        for code, account in holder.accounts.items()
    }
    us = kinds["USD"]
    assert us["accountType"] == "US_ACCOUNT"
    for key in ("accountNumber", "routingNumber", "accountHolderName", "bankName", "reference"):
        assert isinstance(us[key], str) and us[key]
    assert kinds["EUR"]["accountType"] == "IBAN_ACCOUNT" and kinds["EUR"]["iban"]
    assert kinds["USDC"]["accountType"] == "WALLET" and kinds["USDC"]["address"]
    # each account has its own reference
    assert len({info["reference"] for info in kinds.values()}) == 3


def test_fund_credits_both_balances(client: httpx.Client) -> None:
    holder = approved(client)
    fund(client, holder.account_id(), 1_000)
    account = fund(client, holder.account_id(), 234)
    assert account["id"] == holder.account_id()
    for key in ("availableBalance", "totalBalance"):
        assert account[key]["amount"] == 1_234
        assert account[key]["currency"] == {
            "code": "USD",
            "name": "United States Dollar",
            "symbol": "$",
            "decimals": 2,
        }
    assert internal_accounts(client, holder.id)["USD"]["availableBalance"]["amount"] == 1_234
    usdc = fund(client, holder.account_id("USDC"), 5)
    assert usdc["totalBalance"]["currency"]["decimals"] == 6


def test_fund_refusals(client: httpx.Client, second_client: httpx.Client) -> None:
    customer = created(client.post("/customers", json=individual()))
    pending = internal_accounts(client, customer["id"])["USD"]["id"]
    response = client.post(f"/sandbox/internal-accounts/{pending}/fund", json={"amount": 1})
    assert response.status_code == 409
    assert response.json()["code"] == "ACCOUNT_CANNOT_RECEIVE"
    active = approved(client).account_id()
    for body in ({}, {"amount": 0}, {"amount": "5"}, {"amount": 1.5}):
        response = client.post(f"/sandbox/internal-accounts/{active}/fund", json=body)
        assert constraints(response).keys() == {"amount"}
    for who, account_id in ((client, "InternalAccount:nope"), (second_client, active)):
        response = who.post(f"/sandbox/internal-accounts/{account_id}/fund", json={"amount": 1})
        assert response.status_code == 404


@pytest.mark.parametrize("kind", sorted(ACCOUNT_INFO))
def test_external_account_of_each_type(client: httpx.Client, kind: str) -> None:
    customer = created(client.post("/customers", json=individual()))
    account = external(client, customer["id"], kind, "123")
    assert re.fullmatch(r"ExternalAccount:[0-9a-f-]{36}", account["id"])
    assert account["status"] == "ACTIVE"
    assert account["customerId"] == customer["id"]
    assert account["currency"] == CURRENCY_OF[kind]
    assert account["accountInfo"] == ACCOUNT_INFO[kind]("123")


def test_external_account_validation_lists_every_field(client: httpx.Client) -> None:
    body = {
        "customerId": "Customer:nope",
        "currency": "XXX",
        "accountInfo": {"accountType": "US_ACCOUNT"},
    }
    # an id naming no customer answers 404 before the rest is judged
    unknown = missing_records(client.post("/customers/external-accounts", json=body))
    assert unknown == {"customerId": "UNKNOWN_CUSTOMER"}
    body["customerId"] = created(client.post("/customers", json=individual()))["id"]
    assert constraints(client.post("/customers/external-accounts", json=body)) == {
        "currency": "UNSUPPORTED_CURRENCY",
        "accountInfo.accountNumber": "REQUIRED",
        "accountInfo.routingNumber": "REQUIRED",
        "accountInfo.accountCategory": "REQUIRED",
        "accountInfo.accountHolderName": "REQUIRED",
    }
    assert constraints(client.post("/customers/external-accounts", json={})) == {
        "customerId": "REQUIRED",
        "currency": "REQUIRED",
        "accountInfo": "REQUIRED",
    }
    wrong = {"customerId": 1, "currency": "USD", "accountInfo": {"accountType": "CHEQUE"}}
    assert constraints(client.post("/customers/external-accounts", json=wrong)) == {
        "customerId": "TYPE_STRING",
        "accountInfo.accountType": "ENUM",
    }


def test_external_accounts_list(client: httpx.Client, second_client: httpx.Client) -> None:
    customer = created(client.post("/customers", json=individual()))
    first = external(client, customer["id"], "US_ACCOUNT")
    second = external(client, customer["id"], "WALLET")
    listed = client.get("/customers/external-accounts", params={"customerId": customer["id"]})
    assert listed.json() == {"data": [first, second], "nextCursor": None}
    hidden = second_client.get(
        "/customers/external-accounts", params={"customerId": customer["id"]}
    )
    assert hidden.status_code == 404
