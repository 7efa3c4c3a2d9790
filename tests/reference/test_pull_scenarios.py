"""A pull source's identifier suffix selects its scenario as a payout destination's does
(§4 Sandbox behaviours: "whenever the account is a pull source or payout destination"):
``099`` fails the transfer and moves no money, ``003`` settles it later, and the fee of a
pulled quote follows rule 3 like any other."""

from __future__ import annotations

import time
from fractions import Fraction

import httpx

from .customer_helpers import created
from .money_helpers import approved, available, external, quote_body, transaction


def _pull(client: httpx.Client, suffix: str) -> tuple[str, dict[str, object]]:
    holder = approved(client)
    pulled = external(client, holder.id, "US_ACCOUNT", suffix=suffix)["id"]
    quote = created(client.post("/quotes", json=quote_body(pulled, holder.account_id())))
    client.post(f"/quotes/{quote['id']}/execute").raise_for_status()
    return holder.id, quote


def test_pull_source_ending_in_099_fails_and_moves_no_money(client: httpx.Client) -> None:
    customer_id, quote = _pull(client, "099")
    failed = transaction(client, str(quote["transactionId"]))
    assert (failed["status"], failed["failureReason"]) == ("FAILED", "QUOTE_EXECUTION_FAILED")
    assert failed.get("refund") is None  # nothing was debited, so nothing is refunded
    assert available(client, customer_id) == 0
    assert client.get(f"/quotes/{quote['id']}").json()["status"] == "COMPLETED"


def test_pull_source_ending_in_102_fails_the_name_check(client: httpx.Client) -> None:
    customer_id, quote = _pull(client, "102")
    failed = transaction(client, str(quote["transactionId"]))
    assert (failed["status"], failed["failureReason"]) == ("FAILED", "ACCOUNT_INVALID")
    assert available(client, customer_id) == 0


def test_pull_source_ending_in_003_settles_later_and_credits(client: httpx.Client) -> None:
    customer_id, quote = _pull(client, "003")
    assert transaction(client, str(quote["transactionId"]))["status"] == "PROCESSING"
    assert available(client, customer_id) == 0
    deadline = time.monotonic() + 5
    while transaction(client, str(quote["transactionId"]))["status"] != "COMPLETED":
        assert time.monotonic() < deadline, "the slow pull never completed"
        time.sleep(0.1)
    assert available(client, customer_id) == quote["totalReceivingAmount"]


def test_pulled_cross_currency_fee_is_taken_on_the_sending_amount(client: httpx.Client) -> None:
    holder = approved(client, currencies=["USD", "EUR"])
    pulled = external(client, holder.id, "US_ACCOUNT")["id"]
    body = quote_body(pulled, holder.account_id("EUR"), amount=2_500_000)
    quote = created(client.post("/quotes", json=body))
    details = quote["rateDetails"]
    exact = quote["totalSendingAmount"] * Fraction(str(details["serviceApiVariableFeeRate"]))
    assert abs(details["serviceApiVariableFeeAmount"] - exact) <= Fraction(1, 2)
