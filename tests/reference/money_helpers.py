"""Builders for the money-movement tests: approved customers with their accounts, funding,
external accounts, quote bodies, expected fee arithmetic and waits, over real HTTP."""

from __future__ import annotations

import math
import threading
import time
from collections import Counter
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import UTC, datetime
from decimal import Decimal
from fractions import Fraction
from typing import Any

import httpx

from .customer_helpers import consent, created, individual, submit, upload
from .reference_helpers import Delivery, RunningSandbox, WebhookReceiver

CONCURRENT = 20
DECIMALS = {"USD": 2, "EUR": 2, "MXN": 2, "USDC": 6}
ACCOUNT_INFO: dict[str, Callable[[str], dict[str, str]]] = {
    "US_ACCOUNT": lambda suffix: {
        "accountType": "US_ACCOUNT",
        "accountNumber": "123456" + suffix,
        "routingNumber": "021000021",
        "accountCategory": "CHECKING",
        "accountHolderName": "Ann Lee",
    },
    "IBAN_ACCOUNT": lambda suffix: {
        "accountType": "IBAN_ACCOUNT",
        "iban": "DE89370400440532013" + suffix,
    },
    "CLABE_ACCOUNT": lambda suffix: {
        "accountType": "CLABE_ACCOUNT",
        "clabe": "002010077777777" + suffix,
    },
    "WALLET": lambda suffix: {
        "accountType": "WALLET",
        "address": "0xabc" + suffix,
        "network": "BASE",
    },
}
CURRENCY_OF = {"US_ACCOUNT": "USD", "IBAN_ACCOUNT": "EUR", "CLABE_ACCOUNT": "MXN", "WALLET": "USDC"}


@dataclass
class Holder:
    """An approved customer and its internal accounts by currency code."""

    customer: dict[str, Any]
    accounts: dict[str, dict[str, Any]]

    @property
    def id(self) -> str:
        return str(self.customer["id"])

    def account_id(self, code: str = "USD") -> str:
        return str(self.accounts[code]["id"])


def internal_accounts(client: httpx.Client, customer_id: str) -> dict[str, dict[str, Any]]:
    """The customer's internal accounts by currency code."""
    response = client.get("/customers/internal-accounts", params={"customerId": customer_id})
    assert response.status_code == 200, response.text
    return {account["currency"]: account for account in response.json()["data"]}


def approved(
    client: httpx.Client, name: str = "Ann Lee", *, terms: bool = True, **fields: Any
) -> Holder:
    """A customer taken to ``APPROVED`` by a complete submission (unregulated platform)."""
    if terms:
        fields.setdefault("agreementConsents", [consent()])
    customer = created(client.post("/customers", json=individual(name, **fields)))
    created(upload(client, customer["id"]))
    assert submit(client, customer["id"])["verificationStatus"] == "APPROVED"
    return Holder(customer, internal_accounts(client, customer["id"]))


def fund(client: httpx.Client, account_id: str, amount: int) -> dict[str, Any]:
    response = client.post(f"/sandbox/internal-accounts/{account_id}/fund", json={"amount": amount})
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return body


def funded(client: httpx.Client, amount: int = 1_000_000, **fields: Any) -> Holder:
    """An approved customer whose USD account holds ``amount`` cents."""
    holder = approved(client, **fields)
    fund(client, holder.account_id("USD"), amount)
    return holder


def available(client: httpx.Client, customer_id: str, code: str = "USD") -> int:
    return int(internal_accounts(client, customer_id)[code]["availableBalance"]["amount"])


def external(
    client: httpx.Client, customer_id: str, kind: str = "US_ACCOUNT", suffix: str = "000"
) -> dict[str, Any]:
    """An external account of ``kind`` whose primary identifier ends in ``suffix``."""
    body = {
        "customerId": customer_id,
        "currency": CURRENCY_OF[kind],
        "accountInfo": ACCOUNT_INFO[kind](suffix),
    }
    return created(client.post("/customers/external-accounts", json=body))


def quote_body(
    source: str, destination: str, amount: int = 10_000, side: str = "SENDING", **extra: Any
) -> dict[str, Any]:
    return {
        "source": {"sourceType": "ACCOUNT", "accountId": source},
        "destination": {"destinationType": "ACCOUNT", "accountId": destination},
        "lockedCurrencySide": side,
        "lockedCurrencyAmount": amount,
        **extra,
    }


def quote(client: httpx.Client, source: str, destination: str, **kwargs: Any) -> dict[str, Any]:
    return created(client.post("/quotes", json=quote_body(source, destination, **kwargs)))


def execute(client: httpx.Client, quote_id: str) -> dict[str, Any]:
    response = client.post(f"/quotes/{quote_id}/execute")
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return body


def transaction(client: httpx.Client, transaction_id: str) -> dict[str, Any]:
    response = client.get(f"/transactions/{transaction_id}")
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return body


def error_code(response: httpx.Response, status: int) -> str:
    assert response.status_code == status, response.text
    return str(response.json()["code"])


# -- the contract's fee arithmetic, written out independently of reference.payments.pricing


def expected(
    side: str,
    amount: int,
    rate: str,
    decimals: tuple[int, int],
    *,
    cross: bool,
    platform_bps: int = 0,
    platform_fixed: int = 0,
) -> dict[str, int]:
    """``totalSendingAmount``, ``totalReceivingAmount``, ``feesIncluded`` and
    ``platformFeesIncluded`` as SANDBOX.md "Quotes" computes them."""
    f = Fraction(3, 1000) if cross else Fraction(0)
    fixed = 50 if cross else 0
    k = Fraction(Decimal(rate)) * Fraction(10) ** (decimals[1] - decimals[0])

    def half_up(value: Fraction) -> int:
        return math.floor(value + Fraction(1, 2))

    if side == "SENDING":
        platform = half_up(Fraction(amount * platform_bps, 10_000)) + platform_fixed
        variable = half_up(amount * f)
        sending = amount
        receiving = math.floor((amount - variable - fixed - platform) * k)
    else:
        net = math.ceil(amount / k)
        platform = half_up(Fraction(net * platform_bps, 10_000)) + platform_fixed
        sending = math.ceil((net + fixed + platform) / (1 - f))
        variable = sending - net - fixed - platform
        receiving = amount
    return {
        "totalSendingAmount": sending,
        "totalReceivingAmount": receiving,
        "feesIncluded": variable + fixed + platform,
        "platformFeesIncluded": platform,
    }


def amounts(quote: dict[str, Any]) -> dict[str, int]:
    keys = ("totalSendingAmount", "totalReceivingAmount", "feesIncluded", "platformFeesIncluded")
    return {key: quote[key] for key in keys}


# -- waiting ----------------------------------------------------------------------------


def parse(stamp: str) -> datetime:
    return datetime.fromisoformat(stamp.replace("Z", "+00:00"))


def wait_past(stamp: str, margin_s: float = 5.0) -> None:
    """Wait until the clock has passed ``stamp`` (the sandbox shares this clock); the wait
    is bounded by ``stamp`` itself, never longer than it takes plus ``margin_s``."""
    deadline = parse(stamp).timestamp() + margin_s
    while datetime.now(UTC) <= parse(stamp):
        remaining = parse(stamp).timestamp() - time.time()
        assert time.time() < deadline, f"clock did not pass {stamp}"
        time.sleep(min(max(remaining, 0.0) + 0.001, 0.05))


def payment_events(
    receiver: WebhookReceiver, transaction_id: str, count: int
) -> list[dict[str, Any]]:
    """Wait for ``count`` OUTGOING_PAYMENT.* events about one transaction; return them in
    timestamp order."""

    def mine(deliveries: list[Delivery]) -> list[dict[str, Any]]:
        events = [d.json() for d in deliveries]
        return [
            e
            for e in events
            if str(e.get("type", "")).startswith("OUTGOING_PAYMENT.")
            and e["data"]["id"] == transaction_id
        ]

    found = mine(receiver.wait_for(lambda ds: len(mine(ds)) >= count))
    return sorted(found, key=lambda e: parse(e["timestamp"]))


def race(sandbox: RunningSandbox, quote_id: str) -> Counter[int]:
    """``CONCURRENT`` executes of one quote released together; their status codes."""
    barrier = threading.Barrier(CONCURRENT)

    def one(_: int) -> int:
        with sandbox.client() as mine:
            barrier.wait()
            return mine.post(f"/quotes/{quote_id}/execute").status_code

    with ThreadPoolExecutor(CONCURRENT) as pool:
        return Counter(pool.map(one, range(CONCURRENT)))
