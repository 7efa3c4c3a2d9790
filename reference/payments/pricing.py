"""Quote pricing: exchange rate, fees and amounts (§4 Quotes and transactions, rule 3;
SANDBOX.md, "Quotes").

Fees are taken in the sending currency; the net is converted at the quoted rate. With
``S`` the total sending amount, ``R`` the total receiving amount (both in smallest units),
``f`` the service's variable fee fraction, ``fixed`` its fixed fee and ``platform`` the
platform's fee, and ``k`` the rate in smallest units (``exchangeRate`` *
10^(receiving decimals - sending decimals)):

- Sending locked: ``variable = round_half_up(S * f)``, ``fees = variable + fixed +
  platform``, ``R = floor((S - fees) * k)``.
- Receiving locked: ``net = ceil(R / k)``, ``S = ceil((net + fixed + platform) / (1 - f))``,
  ``variable = S - net - fixed - platform``.

Rounding: the variable fee on a locked sending amount rounds half up (0.5 of a smallest
unit goes to the fee); a received amount rounds down and an amount to send rounds up, so
the customer is never promised more than the sending amount buys. Everything is computed
with exact fractions, never floats. The variant reference (``kernel/variant.py``) rounds the
variable fee up instead, and takes one within one currency too.

Fee schedule: ``f`` = 0.003 and ``fixed`` = 50 (sending currency) across currencies, 0 and
0 within one. The platform fee is ``round_half_up(base * variableRateBps / 10000) +
fixedFee`` from ``platformFeeOverride``, else (USD source, cross-currency) from the first
``feeConfigs`` entry for the source currency; its base is ``S`` when sending is locked and
``net`` when receiving is locked (there ``S`` depends on the fee, so the fee cannot).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from decimal import Decimal
from fractions import Fraction
from typing import Any

from reference.kernel import variant
from reference.kernel.currencies import Currency
from reference.kernel.seams import seam
from reference.kernel.settings import ServerSettings
from reference.payments import rates

SENDING = "SENDING"
RECEIVING = "RECEIVING"
CROSS_VARIABLE_RATE = Decimal("0.003")
CROSS_FIXED_FEE = 50
PLATFORM_FEE_CURRENCY = "USD"  # §8 Limits: platform fee configuration USD source only

EXCHANGE_RATE = seam(
    "pricing.exchange_rate",
    "the exchangeRate a quote states and converts with (context: sending, receiving codes)",
)
PRICE = seam(
    "pricing.price",
    "a quote's Price before it is checked to buy something (context: side, amount,"
    " sending, receiving currencies, pulled: whether the source is an external account)",
)


class PricingError(ValueError):
    """The locked amount cannot pay for the fees, or buys nothing."""


@dataclass(frozen=True, slots=True)
class Fees:
    """The fee schedule of one quote."""

    variable_rate: Decimal
    fixed: int
    platform_bps: int = 0
    platform_fixed: int = 0

    def platform_fee(self, base: int) -> int:
        """The platform's fee on ``base`` smallest units."""
        return round_half_up(Fraction(base * self.platform_bps, 10_000)) + self.platform_fixed


@dataclass(frozen=True, slots=True)
class Price:
    """Everything a quote states about money."""

    exchange_rate: Decimal
    total_sending: int
    total_receiving: int
    variable_fee: int
    fees: Fees
    platform_fee: int

    @property
    def fees_included(self) -> int:
        """``feesIncluded``: variable + fixed + platform."""
        return self.variable_fee + self.fees.fixed + self.platform_fee


def round_half_up(value: Fraction) -> int:
    """The nearest integer to a non-negative ``value``, halves rounded up."""
    return math.floor(value + Fraction(1, 2))


def round_up(value: Fraction) -> int:
    """The least integer not below ``value`` (the variant reference's fee rounding)."""
    return math.ceil(value)


def exchange_rate(sending: str, receiving: str, settings: ServerSettings) -> Decimal:
    """The quoted rate; exactly 1 within one currency (§4 rule 1)."""
    rate = rates.rate(sending, receiving)
    return settings.seams.apply(EXCHANGE_RATE, rate, sending=sending, receiving=receiving)


def smallest_unit_rate(rate: Decimal, sending: Currency, receiving: Currency) -> Fraction:
    """``k``: receiving smallest units per sending smallest unit at ``rate``."""
    return Fraction(rate) * Fraction(10) ** (receiving.decimals - sending.decimals)


def fee_schedule(
    sending: str,
    receiving: str,
    fee_configs: Sequence[Mapping[str, Any]],
    override: Mapping[str, Any] | None,
) -> Fees:
    """The service's and the platform's fees for a quote from ``sending`` to ``receiving``.

    ``override`` is a validated ``platformFeeOverride`` (USD sources only, checked by the
    caller)."""
    cross = sending != receiving
    variable_rate = CROSS_VARIABLE_RATE if cross else Decimal(0)
    fixed = CROSS_FIXED_FEE if cross else 0
    platform: Mapping[str, Any] | None = override
    if platform is None and cross and sending == PLATFORM_FEE_CURRENCY:
        platform = next((c for c in fee_configs if c.get("sourceCurrency") == sending), None)
    if platform is None:
        return Fees(variable_rate, fixed)
    return Fees(
        variable_rate,
        fixed,
        platform_bps=int(platform.get("variableRateBps") or 0),
        platform_fixed=int(platform.get("fixedFee") or 0),
    )


def price(
    side: str,
    amount: int,
    sending: Currency,
    receiving: Currency,
    fees: Fees,
    settings: ServerSettings,
    *,
    pulled: bool = False,
) -> Price:
    """Price a quote whose ``side`` is locked at ``amount``; PricingError if it cannot.
    ``pulled``: the source is an external account (priced the same; the price seam is told)."""
    rate = exchange_rate(sending.code, receiving.code, settings)
    rounding = round_half_up
    if settings.variant:
        rounding = round_up
        if not fees.variable_rate:
            fees = replace(fees, variable_rate=Decimal(variant.SAME_CURRENCY_FEE_BPS) / 10_000)
    priced = settings.seams.apply(
        PRICE,
        _price(side, amount, rate, sending, receiving, fees, rounding),
        side=side,
        amount=amount,
        sending=sending,
        receiving=receiving,
        pulled=pulled,
    )
    if side == SENDING:
        if priced.total_sending - priced.fees_included <= 0:
            raise PricingError("the sending amount does not cover the fees")
        if priced.total_receiving <= 0:
            raise PricingError("the sending amount after fees buys nothing")
    return priced


def _price(
    side: str,
    amount: int,
    rate: Decimal,
    sending: Currency,
    receiving: Currency,
    fees: Fees,
    rounding: Callable[[Fraction], int] = round_half_up,
) -> Price:
    """The fees and amounts of the module docstring, the variable fee rounded by
    ``rounding``; not yet checked to buy something."""
    k = smallest_unit_rate(rate, sending, receiving)
    f = Fraction(fees.variable_rate)
    if side == SENDING:
        total_sending = amount
        platform = fees.platform_fee(total_sending)
        variable = rounding(total_sending * f)
        net = total_sending - variable - fees.fixed - platform
        total_receiving = math.floor(net * k)
    else:
        total_receiving = amount
        net = math.ceil(amount / k)
        platform = fees.platform_fee(net)
        total_sending = math.ceil((net + fees.fixed + platform) / (1 - f))
        variable = total_sending - net - fees.fixed - platform
    return Price(rate, total_sending, total_receiving, variable, fees, platform)
