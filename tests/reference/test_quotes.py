"""``POST /quotes`` and ``GET /quotes/{id}``: each quote shape, the fee arithmetic on both
locked sides within and across currencies, platform fees, every validation at once, and the
customer checks (approval, end-user terms)."""

from __future__ import annotations

import re
from datetime import timedelta
from decimal import Decimal

import httpx
import pytest

from reference.kernel.currencies import CURRENCIES
from reference.kernel.settings import ServerSettings
from reference.payments import pricing, rates

from .customer_helpers import (
    complete_individual,
    conflicts,
    constraints,
    created,
    individual,
    missing_records,
    submit,
)
from .money_helpers import (
    CURRENCY_OF,
    DECIMALS,
    amounts,
    approved,
    error_code,
    expected,
    external,
    parse,
    quote,
    quote_body,
)

RATE = {"USD": "1", "EUR": "0.92", "MXN": "17.5", "USDC": "1"}


@pytest.mark.parametrize("kind", sorted(CURRENCY_OF))
@pytest.mark.parametrize("side", ["SENDING", "RECEIVING"])
def test_quote_to_each_external_account_type(client: httpx.Client, kind: str, side: str) -> None:
    holder = approved(client)
    destination = external(client, holder.id, kind)
    body = quote(client, holder.account_id(), destination["id"], amount=10_000, side=side)
    code = CURRENCY_OF[kind]
    assert re.fullmatch(r"Quote:[0-9a-f-]{36}", body["id"])
    assert body["status"] == "PENDING"
    assert re.fullmatch(r"Transaction:[0-9a-f-]{36}", body["transactionId"])
    assert body["source"] == {"sourceType": "ACCOUNT", "accountId": holder.account_id()}
    assert body["destination"]["accountId"] == destination["id"]
    assert body["destination"]["paymentRail"]  # chosen by the service when omitted
    assert body["sendingCurrency"]["code"] == "USD"
    assert body["receivingCurrency"] == {
        "code": code,
        "name": CURRENCIES[code].name,
        "symbol": CURRENCIES[code].symbol,
        "decimals": DECIMALS[code],
    }
    assert Decimal(str(body["exchangeRate"])) == Decimal(RATE[code])
    cross = code != "USD"
    assert amounts(body) == expected(side, 10_000, RATE[code], (2, DECIMALS[code]), cross=cross)
    details = body["rateDetails"]
    assert details["serviceApiVariableFeeRate"] == (0.003 if cross else 0)
    assert details["serviceApiFixedFee"] == (50 if cross else 0)
    assert parse(body["expiresAt"]) - parse(body["createdAt"]) == timedelta(seconds=60)
    transaction = client.get(f"/transactions/{body['transactionId']}").json()
    assert transaction["status"] == "PENDING" and transaction["quoteId"] == body["id"]
    assert client.get(f"/quotes/{body['id']}").json() == body


def test_fee_arithmetic_by_hand(client: httpx.Client) -> None:
    """The worked examples of the contract's formulas (USD to EUR at 0.92)."""
    holder = approved(client)
    eur = external(client, holder.id, "IBAN_ACCOUNT")["id"]
    usd = external(client, holder.id, "US_ACCOUNT")["id"]
    source = holder.account_id()
    # sending locked: variable 30, fixed 50, received floor(9920 * 0.92)
    assert amounts(quote(client, source, eur, amount=10_000)) == {
        "totalSendingAmount": 10_000,
        "totalReceivingAmount": 9_126,
        "feesIncluded": 80,
        "platformFeesIncluded": 0,
    }
    # half up: 500 * 0.003 = 1.5 -> 2; floor(448 * 0.92) = 412
    assert quote(client, source, eur, amount=500)["totalReceivingAmount"] == 412
    # receiving locked: net ceil(10000 / 0.92) = 10870; S = ceil(10920 / 0.997) = 10953
    assert amounts(quote(client, source, eur, amount=10_000, side="RECEIVING")) == {
        "totalSendingAmount": 10_953,
        "totalReceivingAmount": 10_000,
        "feesIncluded": 83,
        "platformFeesIncluded": 0,
    }
    # same currency: no fees, rate exactly 1, both sides alike
    for side in ("SENDING", "RECEIVING"):
        same = quote(client, source, usd, amount=10_000, side=side)
        assert same["exchangeRate"] == 1
        assert amounts(same) == {
            "totalSendingAmount": 10_000,
            "totalReceivingAmount": 10_000,
            "feesIncluded": 0,
            "platformFeesIncluded": 0,
        }


def test_decimals_convert_between_smallest_units(client: httpx.Client) -> None:
    holder = approved(client)
    body = quote(client, holder.account_id(), holder.account_id("USDC"), amount=10_000)
    assert body["destination"]["paymentRail"] == "INTERNAL"
    assert body["totalReceivingAmount"] == 9_920 * 10_000  # cents to micro-USDC
    back = quote(client, holder.account_id("USDC"), holder.account_id(), amount=1_000_000)
    assert back["totalReceivingAmount"] == (1_000_000 - 3_000 - 50) // 10_000


@pytest.mark.parametrize("side", ["SENDING", "RECEIVING"])
@pytest.mark.parametrize("amount", [1_000, 12_345, 987_654_321])
def test_pricing_matches_the_contract(side: str, amount: int) -> None:
    settings = ServerSettings()
    for sending, receiving in (("USD", "EUR"), ("USD", "MXN"), ("EUR", "USD"), ("USD", "USD")):
        config = [{"sourceCurrency": "USD", "variableRateBps": 37, "fixedFee": 11}]
        fees = pricing.fee_schedule(sending, receiving, config, None)
        got = pricing.price(
            side, amount, CURRENCIES[sending], CURRENCIES[receiving], fees, settings
        )
        platform = sending == "USD" and sending != receiving
        want = expected(
            side,
            amount,
            str(rates.rate(sending, receiving)),
            (2, 2),
            cross=sending != receiving,
            platform_bps=37 if platform else 0,
            platform_fixed=11 if platform else 0,
        )
        assert {
            "totalSendingAmount": got.total_sending,
            "totalReceivingAmount": got.total_receiving,
            "feesIncluded": got.fees_included,
            "platformFeesIncluded": got.platform_fee,
        } == want


def test_platform_fees_from_config_and_override(client: httpx.Client) -> None:
    fee = {"sourceCurrency": "USD", "variableRateBps": 100, "fixedFee": 25}
    assert client.patch("/config", json={"feeConfigs": [fee]}).status_code == 200
    holder = approved(client, currencies=["USD", "EUR"])
    eur = external(client, holder.id, "IBAN_ACCOUNT")["id"]
    usd = external(client, holder.id, "US_ACCOUNT")["id"]
    source = holder.account_id()
    for side in ("SENDING", "RECEIVING"):
        body = quote(client, source, eur, side=side)
        assert amounts(body) == expected(
            side, 10_000, "0.92", (2, 2), cross=True, platform_bps=100, platform_fixed=25
        )
    assert amounts(quote(client, source, eur))["platformFeesIncluded"] == 125
    # feeConfigs are for cross-currency quotes; an override applies to any USD source
    assert quote(client, source, usd)["platformFeesIncluded"] == 0
    override = {"variableRateBps": 0, "fixedFee": 10}
    same = quote(client, source, usd, platformFeeOverride=override)
    assert amounts(same) == expected("SENDING", 10_000, "1", (2, 2), cross=False, platform_fixed=10)
    cross = quote(client, source, eur, platformFeeOverride={"variableRateBps": 50})
    assert cross["platformFeesIncluded"] == 50  # replaces the configured fee
    response = client.post(
        "/quotes",
        json=quote_body(holder.account_id("EUR"), eur, platformFeeOverride={"fixedFee": 1}),
    )
    assert constraints(response) == {"platformFeeOverride": "USD_SOURCE_ONLY"}


def test_texts_are_echoed(client: httpx.Client) -> None:
    holder = approved(client)
    destination = external(client, holder.id)["id"]
    texts = {
        "description": "rent",
        "remittanceInformation": "x" * 80,
        "purposeOfPayment": "FAMILY_SUPPORT",
    }
    body = quote(client, holder.account_id(), destination, **texts)
    assert {key: body[key] for key in texts} == texts
    transaction = client.get(f"/transactions/{body['transactionId']}").json()
    assert {key: transaction[key] for key in texts} == texts
    too_long = quote_body(holder.account_id(), destination, remittanceInformation="x" * 81)
    assert constraints(client.post("/quotes", json=too_long)) == {
        "remittanceInformation": "MAX_LENGTH"
    }


def test_every_invalid_field_at_once(client: httpx.Client) -> None:
    body = {
        "source": {"sourceType": "ACCOUNT"},
        "destination": {"destinationType": "ACCOUNT", "accountId": "ExternalAccount:nope"},
        "lockedCurrencySide": "BOTH",
        "lockedCurrencyAmount": 0,
        "immediatelyExecute": "yes",
        "description": 5,
        "remittanceInformation": "y" * 81,
        "platformFeeOverride": {"variableRateBps": 10_001, "fixedFee": -1},
    }
    # an id naming no account answers 404 before the rest is judged (as one in a path does)
    unknown = missing_records(client.post("/quotes", json=body))
    assert unknown == {"destination.accountId": "UNKNOWN_ACCOUNT"}
    body["destination"] = {"destinationType": "ACCOUNT", "accountId": 7}
    assert constraints(client.post("/quotes", json=body)) == {
        "source.accountId": "REQUIRED",
        "destination.accountId": "TYPE_STRING",
        "lockedCurrencySide": "ENUM",
        "lockedCurrencyAmount": "MINIMUM",
        "immediatelyExecute": "TYPE_BOOLEAN",
        "description": "TYPE_STRING",
        "remittanceInformation": "MAX_LENGTH",
        "platformFeeOverride.variableRateBps": "MAXIMUM",
        "platformFeeOverride.fixedFee": "MINIMUM",
    }
    assert constraints(client.post("/quotes", json={})) == {
        "source": "REQUIRED",
        "destination": "REQUIRED",
        "lockedCurrencySide": "REQUIRED",
        "lockedCurrencyAmount": "REQUIRED",
    }


def test_accounts_must_belong_together(client: httpx.Client, second_client: httpx.Client) -> None:
    holder = approved(client)
    other = approved(client, "Bo Chen")
    foreign = approved(second_client)
    mine = external(client, holder.id)["id"]
    unpullable = external(client, holder.id, "IBAN_ACCOUNT")["id"]
    cases = {
        (holder.account_id(), other.account_id()): {"destination.accountId": "OTHER_CUSTOMER"},
        (holder.account_id(), holder.account_id()): {"destination.accountId": "SAME_ACCOUNT"},
        (foreign.account_id(), mine): {"source.accountId": "UNKNOWN_ACCOUNT"},
        (holder.account_id(), foreign.account_id()): {"destination.accountId": "UNKNOWN_ACCOUNT"},
        (unpullable, holder.account_id()): {"source.accountId": "NOT_PULLABLE"},
    }
    for (source, destination), want in cases.items():
        response = client.post("/quotes", json=quote_body(source, destination))
        unknown = "UNKNOWN_ACCOUNT" in want.values()  # only ids naming nothing: 404
        assert (missing_records if unknown else conflicts)(response) == want  # else: state
    unknown_kinds = {
        "source": {"sourceType": "CARD", "accountId": holder.account_id()},
        "destination": {"destinationType": "IBAN", "accountId": mine},
        "lockedCurrencySide": "SENDING",
        "lockedCurrencyAmount": 1,
    }
    assert constraints(client.post("/quotes", json=unknown_kinds)) == {
        "source.sourceType": "ENUM",
        "destination.destinationType": "ENUM",
    }


def test_amount_too_small_for_the_fees(client: httpx.Client) -> None:
    holder = approved(client)
    destination = external(client, holder.id, "IBAN_ACCOUNT")["id"]
    response = client.post("/quotes", json=quote_body(holder.account_id(), destination, 50))
    assert conflicts(response) == {"lockedCurrencyAmount": "AMOUNT_TOO_SMALL"}  # the fees


def test_customer_must_be_approved(client: httpx.Client) -> None:
    customer = complete_individual(client, "Ann Lee 001")
    submit(client, customer["id"])  # PENDING
    accounts = client.get("/customers/internal-accounts", params={"customerId": customer["id"]})
    by_code = {a["currency"]: a["id"] for a in accounts.json()["data"]}
    response = client.post("/quotes", json=quote_body(by_code["USD"], by_code["USDC"]))
    assert error_code(response, 409) == "CUSTOMER_NOT_APPROVED"


def test_end_user_terms_needed_on_unregulated_platforms(
    client: httpx.Client, regulated_client: httpx.Client
) -> None:
    holder = approved(client, terms=False)
    response = client.post(
        "/quotes", json=quote_body(holder.account_id(), holder.account_id("USDC"))
    )
    assert error_code(response, 409) == "END_USER_TERMS_NOT_ACCEPTED"
    customer = created(regulated_client.post("/customers", json=individual("Ann Lee")))
    accounts = regulated_client.get(
        "/customers/internal-accounts", params={"customerId": customer["id"]}
    ).json()["data"]
    by_code = {a["currency"]: a["id"] for a in accounts}
    regulated = regulated_client.post("/quotes", json=quote_body(by_code["USD"], by_code["USDC"]))
    assert regulated.status_code == 201, regulated.text


def test_quotes_are_per_platform(client: httpx.Client, second_client: httpx.Client) -> None:
    holder = approved(client)
    body = quote(client, holder.account_id(), holder.account_id("USDC"))
    for path in (f"/quotes/{body['id']}", f"/transactions/{body['transactionId']}"):
        assert error_code(second_client.get(path), 404) == "NOT_FOUND"
    assert error_code(second_client.post(f"/quotes/{body['id']}/execute"), 404) == "NOT_FOUND"
