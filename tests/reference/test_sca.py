"""Strong customer authentication: challenges on execute, chained authorization, the SCA
session, the lock after wrong proofs, expiry, and 409 for customers outside SCA."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
import pytest

from .money_helpers import (
    Holder,
    approved,
    available,
    error_code,
    execute,
    external,
    fund,
    internal_accounts,
    parse,
    quote,
    transaction,
    wait_past,
)
from .reference_helpers import RunningSandbox

EEA_ADDRESS = {"line1": "Unter den Linden 1", "city": "Berlin", "postalCode": "10117",
               "country": "DE"}  # fmt: skip
CODE = "000000"


def eu_holder(client: httpx.Client, funds: int = 100_000) -> Holder:
    """An approved customer living in Germany with a funded EUR account."""
    holder = approved(client, nationality="DE", address=dict(EEA_ADDRESS), currencies=["EUR"])
    fund(client, holder.account_id("EUR"), funds)
    return Holder(holder.customer, internal_accounts(client, holder.id))


def login(client: httpx.Client, customer_id: str, code: str = CODE) -> httpx.Response:
    return client.post("/sca/login/complete", json={"customerId": customer_id, "code": code})


def authorize(client: httpx.Client, quote_id: str, **proof: Any) -> httpx.Response:
    return client.post(f"/quotes/{quote_id}/authorize", json=proof or {"code": CODE})


def challenged(client: httpx.Client, holder: Holder, kind: str = "IBAN_ACCOUNT") -> dict[str, Any]:
    destination = external(client, holder.id, kind)["id"]
    body = quote(client, holder.account_id("EUR"), destination, amount=10_000)
    answered = execute(client, body["id"])
    assert answered["status"] == "PENDING_AUTHORIZATION", answered
    return answered


def test_same_currency_needs_one_challenge_then_settles(client: httpx.Client) -> None:
    holder = eu_holder(client)
    answered = challenged(client, holder)
    challenge = answered["scaChallenge"]
    assert challenge["id"].startswith("ScaChallenge:")
    assert challenge["factor"] == "SMS_OTP"
    assert challenge["availableFactors"] == ["SMS_OTP", "PASSKEY"]
    assert challenge["purpose"] == "PAYOUT"
    assert parse(challenge["expiresAt"]) <= parse(answered["expiresAt"])
    accounts = internal_accounts(client, holder.id)["EUR"]
    assert accounts["availableBalance"]["amount"] == 90_000  # held
    assert accounts["totalBalance"]["amount"] == 100_000  # not debited
    assert transaction(client, answered["transactionId"])["status"] == "PENDING"
    again = client.post(f"/quotes/{answered['id']}/execute")
    assert error_code(again, 409) == "QUOTE_PENDING_AUTHORIZATION"
    assert error_code(authorize(client, answered["id"]), 409) == "SCA_SESSION_REQUIRED"
    session = login(client, holder.id)
    assert session.status_code == 200, session.text
    expires = parse(session.json()["sessionExpiresAt"])
    assert abs(expires - datetime.now(UTC) - timedelta(days=180)) < timedelta(minutes=1)
    released = authorize(client, answered["id"])
    assert released.status_code == 200, released.text
    assert released.json()["status"] in ("PROCESSING", "COMPLETED")
    assert "scaChallenge" not in released.json()
    assert transaction(client, answered["transactionId"])["status"] == "COMPLETED"
    accounts = internal_accounts(client, holder.id)["EUR"]
    assert accounts["availableBalance"]["amount"] == accounts["totalBalance"]["amount"] == 90_000
    assert error_code(authorize(client, answered["id"]), 409) == "QUOTE_NOT_PENDING_AUTHORIZATION"


def test_cross_currency_chains_conversion_then_payout(client: httpx.Client) -> None:
    holder = eu_holder(client)
    assert login(client, holder.id).status_code == 200
    answered = challenged(client, holder, "US_ACCOUNT")
    assert answered["scaChallenge"]["purpose"] == "CONVERSION"
    second = authorize(client, answered["id"]).json()
    assert second["status"] == "PENDING_AUTHORIZATION"
    assert second["scaChallenge"]["purpose"] == "PAYOUT"
    assert second["scaChallenge"]["id"] != answered["scaChallenge"]["id"]
    passkey = authorize(
        client, answered["id"], factor="PASSKEY", assertion="sandbox-valid-passkey-signature"
    )
    assert passkey.json()["status"] in ("PROCESSING", "COMPLETED")
    assert internal_accounts(client, holder.id)["EUR"]["totalBalance"]["amount"] == 90_000


def test_wrong_proofs_then_lock(client: httpx.Client) -> None:
    holder = eu_holder(client)
    login(client, holder.id)
    answered = challenged(client, holder)
    first = authorize(client, answered["id"], code="123456")
    assert error_code(first, 401) == "UNAUTHORIZED" and first.json()["reason"]
    assert error_code(authorize(client, answered["id"], code="123456"), 401) == "UNAUTHORIZED"
    assert error_code(authorize(client, answered["id"], code="123456"), 423) == "ACCOUNT_LOCKED"
    assert error_code(authorize(client, answered["id"]), 423) == "ACCOUNT_LOCKED"
    missing = authorize(client, answered["id"], factor="PASSKEY")
    assert error_code(missing, 423) == "ACCOUNT_LOCKED"  # the lock comes first
    assert client.get(f"/quotes/{answered['id']}").json()["status"] == "PENDING_AUTHORIZATION"


def test_missing_code_is_invalid_input(client: httpx.Client) -> None:
    holder = eu_holder(client)
    login(client, holder.id)
    answered = challenged(client, holder)
    response = authorize(client, answered["id"], factor="SMS_OTP")
    assert error_code(response, 400) == "INVALID_INPUT"
    assert response.json()["details"]["errors"][0]["field"] == "code"
    assert error_code(login(client, holder.id, "999999"), 401) == "UNAUTHORIZED"
    blank = client.post("/sca/login/complete", json={})
    fields = {e["field"] for e in blank.json()["details"]["errors"]}
    assert fields == {"customerId", "code"}


def test_customers_outside_sca_never_see_it(client: httpx.Client) -> None:
    us = approved(client, currencies=["EUR"])
    fund(client, us.account_id("EUR"), 50_000)
    destination = external(client, us.id, "IBAN_ACCOUNT")["id"]
    body = quote(client, us.account_id("EUR"), destination, amount=1_000)
    answered = execute(client, body["id"])
    assert answered["status"] == "PROCESSING" and "scaChallenge" not in answered
    assert error_code(authorize(client, body["id"]), 409) == "SCA_NOT_REQUIRED"
    assert error_code(login(client, us.id), 409) == "SCA_NOT_REQUIRED"
    # an EU customer sending USD: no challenge either
    eu = approved(client, address=dict(EEA_ADDRESS), currencies=["EUR", "USD"])
    fund(client, eu.account_id("USD"), 5_000)
    payout = external(client, eu.id, "IBAN_ACCOUNT")["id"]
    usd = execute(client, quote(client, eu.account_id("USD"), payout, amount=1_000)["id"])
    assert usd["status"] == "PROCESSING" and "scaChallenge" not in usd


@pytest.fixture
def short_lived(launch: Callable[..., RunningSandbox]) -> RunningSandbox:
    return launch("--quote-lifetime", "1")


def test_expired_challenge_fails_the_transfer(short_lived: RunningSandbox) -> None:
    with short_lived.client() as client:
        holder = eu_holder(client)
        answered = challenged(client, holder)
        wait_past(answered["scaChallenge"]["expiresAt"])
        assert client.get(f"/quotes/{answered['id']}").json()["status"] == "EXPIRED"
        failed = transaction(client, answered["transactionId"])
        assert (failed["status"], failed["failureReason"]) == ("FAILED", "SCA_NOT_COMPLETED")
        assert available(client, holder.id, "EUR") == 100_000
        assert error_code(authorize(client, answered["id"]), 400) == "QUOTE_EXPIRED"


def jit_body(customer_id: str, destination: str) -> dict[str, Any]:
    return {
        "source": {"sourceType": "REALTIME_FUNDING", "customerId": customer_id, "currency": "EUR"},
        "destination": {"destinationType": "ACCOUNT", "accountId": destination},
        "lockedCurrencySide": "SENDING",
        "lockedCurrencyAmount": 10_000,
    }


def test_just_in_time_instructions_are_withheld_until_authorized(client: httpx.Client) -> None:
    holder = eu_holder(client)
    login(client, holder.id)
    destination = external(client, holder.id, "IBAN_ACCOUNT")["id"]
    response = client.post("/quotes", json=jit_body(holder.id, destination))
    assert response.status_code == 201, response.text
    created = response.json()
    assert created["status"] == "PENDING_AUTHORIZATION"
    assert "paymentInstructions" not in created
    paid = client.post("/sandbox/send", json={"quoteId": created["id"], "currencyCode": "EUR"})
    assert paid.status_code == 409  # not payable before authorization
    authorized = authorize(client, created["id"]).json()
    assert authorized["status"] == "PENDING"
    assert authorized["paymentInstructions"]
    assert "scaChallenge" not in authorized
    paid = client.post("/sandbox/send", json={"quoteId": created["id"], "currencyCode": "EUR"})
    assert paid.status_code == 200, paid.text
