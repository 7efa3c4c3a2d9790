"""The arithmetic a quote must satisfy (§4 Quotes and transactions, rules 1 and 3), as pure
functions of the request sent and the quote returned.

Every check has the signature ``(QuoteNumbers) -> Discrepancy | None`` and is registered
with :func:`arithmetic_check`, whose ``applies`` guard says when it runs (same currency,
cross currency, rate details present). :func:`discrepancies` runs every applicable check.

Rounding. The interface states no rounding rule, so every amount the service must round
may differ from its exact value by up to ``TOLERANCE`` (one smallest unit) per rounding
step, in the unit of the side that was rounded:

- the variable fee ``S x f`` is one step (in sending units);
- the conversion of the net amount is one step: with ``SENDING`` locked the receiving
  amount is rounded, with ``RECEIVING`` locked the sending amount is; either side passes.

The quoted ``exchangeRate`` is taken as exact, because rule 3 converts the net amount "at
the quoted rate". Which way the rate reads is not shown, so four readings are accepted:
receiving per sending or sending per receiving, in major or in smallest units.

Which fees ``feesIncluded`` holds is not shown beyond "fees": the net amount converted is
``totalSendingAmount - feesIncluded``, or that less ``platformFeesIncluded`` when the target
reports the platform fee apart; a ``rateDetails.counterpartyFixedFee`` may be taken in the
receiving currency (rule 4: "some are denominated in the receiving currency").
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from conformance.contract import clauses

__all__ = [
    "CHECKS",
    "TOLERANCE",
    "ArithmeticCheck",
    "Discrepancy",
    "QuoteNumbers",
    "arithmetic_check",
    "discrepancies",
    "rate_readings",
]

TOLERANCE = 1
RULES_CLAUSE = clauses.QUOTES_ENDPOINTS
FIELDS_CLAUSE = clauses.QUOTE


@dataclass(frozen=True, slots=True)
class Discrepancy:
    """One rule a quote breaks: the requirement id, the clause, and what was found."""

    requirement: str
    clause: str
    statement: str
    expected: object
    observed: object


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _fraction(value: Any) -> Fraction | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return Fraction(repr(value)) if isinstance(value, float) else Fraction(value)


@dataclass(frozen=True, slots=True)
class QuoteNumbers:
    """The numbers of one quote that the checks read, with the request's locked side."""

    side: str
    locked: int
    sending: int
    receiving: int
    fees: int | None
    platform_fees: int | None
    rate: Fraction | None
    sending_code: str
    receiving_code: str
    sending_decimals: int
    receiving_decimals: int
    variable_rate: Fraction | None = None
    variable_fee: int | None = None
    counterparty_fixed_fee: int | None = None

    @property
    def same_currency(self) -> bool:
        return self.sending_code == self.receiving_code

    @property
    def nets(self) -> tuple[int, ...]:
        """The net sending amounts a reading of feesIncluded allows (see module doc)."""
        fees, platform = self.fees or 0, self.platform_fees or 0
        return tuple(dict.fromkeys((self.sending - fees, self.sending - fees - platform)))

    @classmethod
    def read(cls, request: Mapping[str, Any], quote: Mapping[str, Any]) -> QuoteNumbers | None:
        """The numbers, or None when the quote lacks a field the schema already checks."""
        sending, receiving = quote.get("sendingCurrency"), quote.get("receivingCurrency")
        if not isinstance(sending, Mapping) or not isinstance(receiving, Mapping):
            return None
        total_s, total_r = (
            _int(quote.get("totalSendingAmount")),
            _int(quote.get("totalReceivingAmount")),
        )
        ds, dr = _int(sending.get("decimals")), _int(receiving.get("decimals"))
        if total_s is None or total_r is None or ds is None or dr is None:
            return None
        details = quote.get("rateDetails")
        details = details if isinstance(details, Mapping) else {}
        return cls(
            side=str(request.get("lockedCurrencySide")),
            locked=int(request.get("lockedCurrencyAmount", 0)),
            sending=total_s,
            receiving=total_r,
            fees=_int(quote.get("feesIncluded")),
            platform_fees=_int(quote.get("platformFeesIncluded")),
            rate=_fraction(quote.get("exchangeRate")),
            sending_code=str(sending.get("code")),
            receiving_code=str(receiving.get("code")),
            sending_decimals=ds,
            receiving_decimals=dr,
            variable_rate=_fraction(details.get("serviceApiVariableFeeRate")),
            variable_fee=_int(details.get("serviceApiVariableFeeAmount")),
            counterparty_fixed_fee=_int(details.get("counterpartyFixedFee")),
        )


def rate_readings(numbers: QuoteNumbers) -> dict[str, Fraction]:
    """Receiving smallest units per sending smallest unit, per reading of exchangeRate."""
    rate = numbers.rate
    if rate is None or rate <= 0:
        return {}
    scale = Fraction(10) ** (numbers.receiving_decimals - numbers.sending_decimals)
    readings = {
        "receiving per sending, major units": rate * scale,
        "receiving per sending, smallest units": rate,
        "sending per receiving, major units": scale / rate,
        "sending per receiving, smallest units": 1 / rate,
    }
    unique: dict[Fraction, str] = {}
    for label, k in readings.items():
        unique.setdefault(k, label)
    return {label: k for k, label in unique.items()}


ArithmeticCheck = Callable[[QuoteNumbers], Discrepancy | None]


@dataclass(frozen=True, slots=True)
class _Registered:
    check: ArithmeticCheck
    applies: Callable[[QuoteNumbers], bool]


CHECKS: list[_Registered] = []


def arithmetic_check(
    applies: Callable[[QuoteNumbers], bool] = lambda numbers: True,
) -> Callable[[ArithmeticCheck], ArithmeticCheck]:
    """Register a check; ``applies`` is its guard."""

    def register(check: ArithmeticCheck) -> ArithmeticCheck:
        CHECKS.append(_Registered(check, applies))
        return check

    return register


def discrepancies(request: Mapping[str, Any], quote: Mapping[str, Any]) -> list[Discrepancy]:
    """Every rule the quote breaks, in registration order."""
    numbers = QuoteNumbers.read(request, quote)
    if numbers is None:
        return []
    found = (entry.check(numbers) for entry in CHECKS if entry.applies(numbers))
    return [d for d in found if d is not None]


def _show(numbers: QuoteNumbers) -> dict[str, object]:
    return {
        "lockedCurrencySide": numbers.side,
        "totalSendingAmount": f"{numbers.sending} {numbers.sending_code}",
        "totalReceivingAmount": f"{numbers.receiving} {numbers.receiving_code}",
        "feesIncluded": numbers.fees,
        "platformFeesIncluded": numbers.platform_fees,
        "exchangeRate": None if numbers.rate is None else float(numbers.rate),
    }


# -- rule checks ------------------------------------------------------------------------------


@arithmetic_check()
def locked_amount_is_honoured(numbers: QuoteNumbers) -> Discrepancy | None:
    total = numbers.sending if numbers.side == "SENDING" else numbers.receiving
    if total == numbers.locked:
        return None
    field = "totalSendingAmount" if numbers.side == "SENDING" else "totalReceivingAmount"
    return Discrepancy(
        "QUOTE-LOCKED-AMOUNT-HONOURED",
        RULES_CLAUSE,
        f"with {numbers.side} locked, {field} equals lockedCurrencyAmount",
        numbers.locked,
        _show(numbers),
    )


@arithmetic_check()
def fee_fields_are_populated(numbers: QuoteNumbers) -> Discrepancy | None:
    fees, platform = numbers.fees, numbers.platform_fees
    if fees is not None and platform is not None and fees >= 0 and platform >= 0:
        return None
    return Discrepancy(
        "QUOTE-FEE-FIELDS",
        FIELDS_CLAUSE,
        "feesIncluded and platformFeesIncluded are integer amounts, populated on "
        "same-currency quotes too",
        "two integers >= 0",
        _show(numbers),
    )


@arithmetic_check(lambda n: n.same_currency)
def same_currency_rate_is_one(numbers: QuoteNumbers) -> Discrepancy | None:
    if numbers.rate == 1:
        return None
    return Discrepancy(
        "QUOTE-SAME-CURRENCY-RATE-ONE",
        RULES_CLAUSE + " (rule 1)",
        "a same-currency quote returns exchangeRate 1",
        1,
        _show(numbers),
    )


@arithmetic_check(lambda n: n.same_currency and n.fees is not None)
def same_currency_fees_come_off_the_sending_amount(numbers: QuoteNumbers) -> Discrepancy | None:
    if numbers.receiving in numbers.nets:
        return None
    return Discrepancy(
        "FEES-DEDUCTED-FROM-SENDING",
        RULES_CLAUSE + " (rule 3)",
        "fees are deducted from the sending amount: on a same-currency quote "
        "totalReceivingAmount = totalSendingAmount - feesIncluded",
        " or ".join(str(n) for n in numbers.nets),
        _show(numbers),
    )


def conversion_error(net: int, received: int, k: Fraction) -> Fraction:
    """Smallest units between the net amount converted at ``k`` and the received amount,
    judged on whichever side was rounded (the smaller of the two errors)."""
    on_receiving = abs(received - net * k)
    on_sending = abs(net - received / k)
    return min(on_receiving, on_sending)


@arithmetic_check(lambda n: not n.same_currency and n.fees is not None)
def cross_currency_fees_come_off_then_the_net_is_converted(
    numbers: QuoteNumbers,
) -> Discrepancy | None:
    readings = rate_readings(numbers)
    fixed = numbers.counterparty_fixed_fee or 0
    receiveds = tuple(dict.fromkeys((numbers.receiving, numbers.receiving + fixed)))
    best: tuple[Fraction, str, int] | None = None
    for label, k in readings.items():
        for net in numbers.nets:
            for received in receiveds:
                error = conversion_error(net, received, k)
                if error <= TOLERANCE:
                    return None
                if best is None or error < best[0]:
                    best = (error, label, net)
    expected: object = "a positive exchangeRate"
    if best is not None:
        error, label, net = best
        k = readings[label]
        expected = (
            f"net {net} {numbers.sending_code} (sending less fees) x {float(k):.10g} "
            f"({label}) = {float(net * k):.2f} {numbers.receiving_code}, within "
            f"{TOLERANCE} smallest unit; off by {float(error):.2f}"
        )
    return Discrepancy(
        "FEES-CROSS-CURRENCY-ORDER",
        RULES_CLAUSE + " (rule 3)",
        "on a cross-currency quote the fee is taken in the sending currency, then the net "
        "amount is converted at the quoted rate",
        expected,
        _show(numbers),
    )


def _has_variable_fee(numbers: QuoteNumbers) -> bool:
    return numbers.variable_rate is not None and numbers.variable_fee is not None


@arithmetic_check(_has_variable_fee)
def variable_fee_is_assessed_on_the_sending_amount(numbers: QuoteNumbers) -> Discrepancy | None:
    f, fee = numbers.variable_rate, numbers.variable_fee
    assert f is not None and fee is not None
    exact = numbers.sending * f
    within_fees = numbers.fees is None or fee <= numbers.fees
    if abs(fee - exact) <= TOLERANCE and within_fees:
        return None
    if numbers.side == "RECEIVING":
        requirement = "FEES-VARIABLE-RECEIVING-LOCKED"
        statement = (
            "with RECEIVING locked the sending amount grosses up the rest: send = "
            "(received + other fees) / (1 - f), so the variable fee is send x f, part of "
            "feesIncluded"
        )
    else:
        requirement = "FEES-VARIABLE-SENDING-LOCKED"
        statement = (
            "with SENDING locked the variable fee fraction f is assessed on the sending "
            "amount: received = send - send x f (less other fees), part of feesIncluded"
        )
    return Discrepancy(
        requirement,
        RULES_CLAUSE + " (rule 3)",
        statement,
        f"serviceApiVariableFeeAmount {float(exact):.2f} (= {numbers.sending} x {float(f)}) "
        f"within {TOLERANCE}, at most feesIncluded",
        {
            **_show(numbers),
            "serviceApiVariableFeeAmount": fee,
            "serviceApiVariableFeeRate": float(f),
        },
    )
