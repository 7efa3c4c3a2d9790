"""The quote arithmetic checks of ``conformance.payments.quote_arithmetic`` (§4 Quotes and
transactions, rules 1 and 3) on hand-computed quotes: what passes, what must fail, the
tolerance of one smallest unit per rounding step, and the four readings of the rate.

Cross-currency numbers: USD to EUR at 0.92, variable fee f = 0.003, fixed fee 50 cents.
Sending 100 000 locked: variable 300, fees 350, net 99 650, received 99 650 x 0.92 = 91 678.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import pytest

from conformance.payments.quote_arithmetic import (
    TOLERANCE,
    QuoteNumbers,
    conversion_error,
    discrepancies,
    rate_readings,
)

DECIMALS = {"USD": 2, "EUR": 2, "JPY": 0}


def request(side: str, locked: int) -> dict[str, Any]:
    return {"lockedCurrencySide": side, "lockedCurrencyAmount": locked}


def quote(
    sending: int,
    receiving: int,
    *,
    codes: tuple[str, str] = ("USD", "USD"),
    fees: int | None = 0,
    platform: int | None = 0,
    rate: float = 1,
    **details: Any,
) -> dict[str, Any]:
    """A quote body with only the fields the checks read."""
    body: dict[str, Any] = {
        "sendingCurrency": {"code": codes[0], "decimals": DECIMALS[codes[0]]},
        "receivingCurrency": {"code": codes[1], "decimals": DECIMALS[codes[1]]},
        "totalSendingAmount": sending,
        "totalReceivingAmount": receiving,
        "feesIncluded": fees,
        "platformFeesIncluded": platform,
        "exchangeRate": rate,
    }
    if details:
        body["rateDetails"] = details
    return body


def broken(side: str, locked: int, body: dict[str, Any]) -> list[str]:
    """The requirement ids the quote breaks."""
    return [d.requirement for d in discrepancies(request(side, locked), body)]


def usd_eur(sending: int, receiving: int, fees: int = 350, **extra: Any) -> dict[str, Any]:
    return quote(sending, receiving, codes=("USD", "EUR"), fees=fees, rate=0.92, **extra)


# -- rule 1: same currency ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("sending", "receiving", "fees", "platform"),
    [
        (10_000, 10_000, 0, 0),  # no fee
        (10_000, 9_970, 30, 0),  # a fixed fee deducted from the sending amount
        (10_000, 9_950, 30, 20),  # the platform fee reported apart from feesIncluded
        (10_000, 9_970, 30, 20),  # ... or inside it
    ],
)
def test_same_currency_quotes_that_follow_the_rules_pass(sending, receiving, fees, platform):
    body = quote(sending, receiving, fees=fees, platform=platform)
    assert broken("SENDING", sending, body) == []


def test_a_same_currency_rate_other_than_one_fails_rule_1():
    body = quote(10_000, 10_100, rate=1.01)  # the `same-currency-rate-not-one` fault
    assert broken("SENDING", 10_000, body) == [
        "QUOTE-SAME-CURRENCY-RATE-ONE",
        "FEES-DEDUCTED-FROM-SENDING",
    ]


def test_a_same_currency_fee_not_deducted_from_the_sending_amount_fails_rule_3():
    body = quote(10_000, 10_000, fees=30)  # the fee charged on top, on the receiving side
    assert broken("SENDING", 10_000, body) == ["FEES-DEDUCTED-FROM-SENDING"]


def test_the_locked_side_must_carry_the_locked_amount():
    assert broken("SENDING", 10_000, quote(10_001, 10_001)) == ["QUOTE-LOCKED-AMOUNT-HONOURED"]
    assert broken("RECEIVING", 10_000, quote(10_000, 10_000)) == []
    assert broken("RECEIVING", 9_999, quote(10_000, 10_000)) == ["QUOTE-LOCKED-AMOUNT-HONOURED"]


@pytest.mark.parametrize(("fees", "platform"), [(None, 0), (0, None), (-1, 0)])
def test_fee_fields_must_be_integers_of_zero_or_more(fees, platform):
    assert "QUOTE-FEE-FIELDS" in broken(
        "SENDING", 100, quote(100, 100, fees=fees, platform=platform)
    )


# -- rule 3: cross currency -----------------------------------------------------------------


def test_fees_off_the_sending_amount_then_the_net_converted_passes():
    assert broken("SENDING", 100_000, usd_eur(100_000, 91_678)) == []


@pytest.mark.parametrize(("receiving", "passes"), [(91_677, True), (91_679, True), (91_680, False)])
def test_the_conversion_may_be_off_by_one_smallest_unit(receiving, passes):
    assert TOLERANCE == 1
    found = broken("SENDING", 100_000, usd_eur(100_000, receiving))
    assert found == ([] if passes else ["FEES-CROSS-CURRENCY-ORDER"])


def test_a_fee_taken_on_the_receiving_side_fails_rule_3():
    # converting the whole sending amount (100 000 x 0.92) and charging the fee on top
    assert broken("SENDING", 100_000, usd_eur(100_000, 92_000)) == ["FEES-CROSS-CURRENCY-ORDER"]


def test_converting_at_another_rate_than_the_quoted_one_fails_rule_3():
    # 99 650 x 0.95 = 94 667.5, not at the quoted 0.92
    assert broken("SENDING", 100_000, usd_eur(100_000, 94_667)) == ["FEES-CROSS-CURRENCY-ORDER"]


def test_a_counterparty_fixed_fee_may_be_taken_in_the_receiving_currency():
    body = usd_eur(100_000, 91_638, counterpartyFixedFee=40)  # rule 4
    assert broken("SENDING", 100_000, body) == []
    assert broken("SENDING", 100_000, usd_eur(100_000, 91_638)) == ["FEES-CROSS-CURRENCY-ORDER"]


def test_receiving_locked_grosses_up_the_sending_amount():
    # net = ceil(91 678 / 0.92) = 99 650; send = ceil((99 650 + 50) / 0.997) = 100 000
    details = {"serviceApiVariableFeeRate": 0.003, "serviceApiVariableFeeAmount": 300}
    assert broken("RECEIVING", 91_678, usd_eur(100_000, 91_678, **details)) == []


# -- the variable fee is assessed on the sending amount -------------------------------------


@pytest.mark.parametrize(
    ("fee", "receiving", "passes"),
    # received = floor((100 000 - 50 - fee) x 0.92); only the variable fee is off
    [(299, 91_678, True), (300, 91_678, True), (301, 91_677, True), (302, 91_676, False)],
)
def test_the_variable_fee_is_the_sending_amount_times_f_within_one_unit(fee, receiving, passes):
    details = {"serviceApiVariableFeeRate": 0.003, "serviceApiVariableFeeAmount": fee}
    body = usd_eur(100_000, receiving, fees=fee + 50, **details)
    found = broken("SENDING", 100_000, body)
    assert found == ([] if passes else ["FEES-VARIABLE-SENDING-LOCKED"])


def test_a_variable_fee_assessed_on_the_net_amount_fails_with_receiving_locked():
    # the `fee-on-receiving-side` fault: R = 9 167 800, net 9 965 000, variable
    # round(9 965 000 x 0.003) = 29 895, send = 9 965 000 + 50 + 29 895 = 9 994 945; the
    # right send is ceil(9 965 050 / 0.997) = 9 995 036 (variable 29 986)
    wrong = {"serviceApiVariableFeeRate": 0.003, "serviceApiVariableFeeAmount": 29_895}
    body = usd_eur(9_994_945, 9_167_800, fees=29_945, **wrong)
    assert broken("RECEIVING", 9_167_800, body) == ["FEES-VARIABLE-RECEIVING-LOCKED"]
    right = {"serviceApiVariableFeeRate": 0.003, "serviceApiVariableFeeAmount": 29_986}
    assert broken("RECEIVING", 9_167_800, usd_eur(9_995_036, 9_167_800, 30_036, **right)) == []


def test_a_variable_fee_above_fees_included_fails():
    details = {"serviceApiVariableFeeRate": 0.003, "serviceApiVariableFeeAmount": 300}
    found = broken("SENDING", 100_000, usd_eur(100_000, 91_678, fees=250, **details))
    assert "FEES-VARIABLE-SENDING-LOCKED" in found


# -- the four readings of exchangeRate ------------------------------------------------------


def test_rate_readings_cover_both_directions_in_major_and_smallest_units():
    numbers = QuoteNumbers.read(
        request("SENDING", 100_000), quote(100_000, 149_475, codes=("USD", "JPY"), rate=150)
    )
    assert numbers is not None
    assert rate_readings(numbers) == {
        "receiving per sending, major units": Fraction(3, 2),  # 150 yen per dollar = 1.5/cent
        "receiving per sending, smallest units": Fraction(150),
        "sending per receiving, major units": Fraction(1, 15_000),
        "sending per receiving, smallest units": Fraction(1, 150),
    }


def test_equal_readings_are_listed_once_and_a_missing_rate_has_none():
    same = QuoteNumbers.read(request("SENDING", 100), quote(100, 100))
    assert same is not None and list(rate_readings(same)) == ["receiving per sending, major units"]
    none = QuoteNumbers.read(request("SENDING", 100), quote(100, 100, rate=0))
    assert none is not None and rate_readings(none) == {}


@pytest.mark.parametrize(
    "rate",
    [
        150,  # JPY per USD, major units
        1.5,  # yen per cent
        1 / 150,  # USD per JPY, major units
        1 / 1.5,  # cents per yen
    ],
)
def test_each_reading_of_the_rate_is_accepted(rate):
    # $1 000.00 less 350 cents of fees = 99 650 cents = $996.50 = 149 475 yen
    body = quote(100_000, 149_475, codes=("USD", "JPY"), fees=350, rate=rate)
    assert broken("SENDING", 100_000, body) == []
    off = quote(100_000, 149_477, codes=("USD", "JPY"), fees=350, rate=rate)
    assert broken("SENDING", 100_000, off) == ["FEES-CROSS-CURRENCY-ORDER"]


def test_the_conversion_error_is_judged_on_the_side_that_was_rounded():
    assert conversion_error(99_650, 91_678, Fraction("0.92")) == 0
    # 100 cents at 1/30: 3.33 on the receiving side, 10 on the sending side
    assert conversion_error(100, 3, Fraction(1, 30)) == Fraction(1, 3)
    # 1 000 yen for 7 cents at 1/150: 7 vs 6.67 received, or 1 000 vs 1 050 sent
    assert conversion_error(1_000, 7, Fraction(1, 150)) == Fraction(1, 3)


def test_a_quote_without_the_numbers_the_schema_checks_is_left_to_the_schema():
    body = quote(100, 100)
    body["totalSendingAmount"] = "100"  # the client's schema check reports it
    assert discrepancies(request("SENDING", 100), body) == []
