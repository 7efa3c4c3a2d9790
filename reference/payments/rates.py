"""Fixed sandbox exchange rates (§4 Sandbox behaviours: "Exchange rates may be fixed").

``rate(a, b)`` is the number of major units of ``b`` one major unit of ``a`` buys, the
quote's ``exchangeRate`` (SANDBOX.md, "Quotes"). Every currency is priced against the
US dollar; a pair without USD is the ratio of the two, cut to 12 significant digits. The
rate a quote reports is exactly the decimal it converts with, so a client recomputing the
amounts from ``exchangeRate`` gets the same numbers. Same currency: exactly 1.
"""

from __future__ import annotations

from collections.abc import Mapping
from decimal import Context, Decimal
from types import MappingProxyType

# Major units of each currency per 1 USD.
UNITS_PER_USD: Mapping[str, Decimal] = MappingProxyType(
    {
        code: Decimal(units)
        for code, units in {
            "USD": "1",
            "EUR": "0.92",
            "GBP": "0.79",
            "CHF": "0.88",
            "CAD": "1.36",
            "AUD": "1.52",
            "NZD": "1.64",
            "JPY": "150",
            "KRW": "1350",
            "CNY": "7.2",
            "HKD": "7.8",
            "SGD": "1.34",
            "INR": "83",
            "IDR": "16000",
            "PHP": "56",
            "THB": "36",
            "VND": "25000",
            "MYR": "4.7",
            "MXN": "17.5",
            "BRL": "5",
            "COP": "3900",
            "ARS": "900",
            "CLP": "950",
            "PEN": "3.75",
            "NGN": "1500",
            "KES": "130",
            "GHS": "15",
            "UGX": "3800",
            "XOF": "600",
            "ZAR": "18.5",
            "EGP": "48",
            "AED": "3.6725",
            "TRY": "32",
            "PLN": "4",
            "SEK": "10.5",
            "NOK": "10.8",
            "DKK": "6.9",
            "CZK": "23",
            "USDC": "1",
            "BTC": "0.000016",
            "SAT": "1600",
        }.items()
    }
)
SIGNIFICANT_DIGITS = 12
_CONTEXT = Context(prec=SIGNIFICANT_DIGITS)


def has_rate(code: str) -> bool:
    """Whether the sandbox prices ``code``."""
    return code in UNITS_PER_USD


def rate(sending: str, receiving: str) -> Decimal:
    """Major units of ``receiving`` per major unit of ``sending``; KeyError if unpriced."""
    if sending == receiving:
        return Decimal(1)
    ratio = _CONTEXT.divide(UNITS_PER_USD[receiving], UNITS_PER_USD[sending])
    return ratio.normalize(_CONTEXT)
