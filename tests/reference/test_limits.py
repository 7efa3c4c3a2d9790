"""Transaction size and daily volume limits, refused quote rates and compliance holds
(SANDBOX.md, "Limits, refused rates and compliance holds")."""

from __future__ import annotations

from types import SimpleNamespace

import httpx

from reference import adapter
from reference.payments.limits import DAILY_LIMIT_USD_CENTS, SIZE_LIMIT_USD_CENTS, in_currency

from .money_helpers import (
    available,
    error_code,
    execute,
    external,
    funded,
    quote,
    quote_body,
    transaction,
)
from .reference_helpers import RunningSandbox

SIZE = SIZE_LIMIT_USD_CENTS
DAILY = DAILY_LIMIT_USD_CENTS


def test_limits_are_told_per_currency(client: httpx.Client) -> None:
    usd = client.get("/sandbox/limits/USD").json()
    assert usd == {"currency": "USD", "transactionSize": SIZE, "dailyVolume": DAILY}
    eur = client.get("/sandbox/limits/eur").json()
    assert eur["transactionSize"] == in_currency(SIZE, "EUR") == 9_200_000
    assert client.get("/sandbox/limits/XXX").status_code == 404


def test_a_quote_above_the_size_limit_is_refused(client: httpx.Client) -> None:
    holder = funded(client, 2 * SIZE)
    destination = external(client, holder.id)["id"]
    at_limit = quote(client, holder.account_id(), destination, amount=SIZE)
    assert at_limit["totalSendingAmount"] == SIZE
    over = client.post("/quotes", json=quote_body(holder.account_id(), destination, SIZE + 1))
    assert error_code(over, 400) == "TRANSACTION_SIZE_LIMIT_EXCEEDED"


def test_volume_past_the_daily_limit_is_refused_at_quote_and_execute(
    client: httpx.Client,
) -> None:
    holder = funded(client, DAILY + SIZE)
    source, destination = holder.account_id(), external(client, holder.id)["id"]
    late = quote(client, source, destination, amount=1_000)  # quoted before the limit is hit
    for _ in range(DAILY // SIZE):
        execute(client, quote(client, source, destination, amount=SIZE)["id"])
    refused = client.post("/quotes", json=quote_body(source, destination, 1_000))
    assert error_code(refused, 429) == "DAILY_VOLUME_LIMIT_EXCEEDED"
    assert int(refused.headers["retry-after"]) >= 1
    before = available(client, holder.id)
    executed = client.post(f"/quotes/{late['id']}/execute")
    assert error_code(executed, 429) == "DAILY_VOLUME_LIMIT_EXCEEDED"
    assert available(client, holder.id) == before


def test_a_refused_rate_fails_execute_and_exchanges_nothing(client: httpx.Client) -> None:
    holder = funded(client, 100_000)
    source, destination = holder.account_id(), external(client, holder.id)["id"]
    quoted = quote(client, source, destination, amount=10_000)
    marked = client.post(f"/sandbox/quotes/{quoted['id']}/refuse-rate")
    assert marked.status_code == 200, marked.text
    for _ in range(2):  # every execute of it answers the same
        answer = client.post(f"/quotes/{quoted['id']}/execute")
        assert error_code(answer, 409) == "QUOTE_RATE_UNAVAILABLE"
    assert available(client, holder.id) == 100_000
    assert client.get(f"/quotes/{quoted['id']}").json()["status"] == "EXPIRED"
    assert transaction(client, quoted["transactionId"])["status"] == "EXPIRED"
    again = client.post(f"/sandbox/quotes/{quoted['id']}/refuse-rate")
    assert error_code(again, 409) == "QUOTE_NOT_PENDING"
    fresh = quote(client, source, destination, amount=10_000)
    assert execute(client, fresh["id"])["status"] == "PROCESSING"


def test_a_payout_to_a_held_account_waits_with_a_pending_reason(client: httpx.Client) -> None:
    holder = funded(client, 100_000)
    destination = external(client, holder.id, suffix="077")["id"]
    quoted = quote(client, holder.account_id(), destination, amount=10_000)
    execute(client, quoted["id"])
    held = transaction(client, quoted["transactionId"])
    assert held["status"] == "PROCESSING"
    assert held["pendingReason"] == "COMPLIANCE_REVIEW"
    assert available(client, holder.id) == 90_000


def _profile(sandbox: RunningSandbox) -> SimpleNamespace:
    token_id, secret = sandbox.credentials()
    return SimpleNamespace(
        base_url=sandbox.base_url, client_id=token_id, client_secret=secret, request_timeout=5.0
    )


def test_the_adapter_tells_the_limits_and_refuses_rates(
    sandbox: RunningSandbox, client: httpx.Client
) -> None:
    profile = _profile(sandbox)
    limits = adapter.pytest_conformance_transaction_limits(profile, "usd")
    assert limits == {"size": SIZE, "daily": DAILY}
    holder = funded(client, 50_000)
    quoted = quote(client, holder.account_id(), external(client, holder.id)["id"])
    assert adapter.pytest_conformance_refuse_quote_rate(profile, quoted["id"]) is True
    answer = client.post(f"/quotes/{quoted['id']}/execute")
    assert error_code(answer, 409) == "QUOTE_RATE_UNAVAILABLE"


def test_the_adapters_held_number_ends_in_077() -> None:
    number = adapter.pytest_conformance_held_account_number(SimpleNamespace(), "USD")
    assert number.endswith("077") and len(number) == 12
