"""The currencies the sandbox knows: code, name, symbol and minor-unit decimals.

Amounts are integers in the smallest unit, so ``decimals`` is what makes them readable
(§ Conventions). The fiat entries are ISO 4217; the crypto entries are carried for quotes
and accounts and are refused where the interface asks for an ISO 4217 code.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType


@dataclass(frozen=True, slots=True)
class Currency:
    """One currency and how its amounts are scaled."""

    code: str
    name: str
    symbol: str
    decimals: int
    iso4217: bool = True

    def as_json(self) -> dict[str, str | int]:
        """The ``{code, name, symbol, decimals}`` object of quotes and transactions."""
        return {
            "code": self.code,
            "name": self.name,
            "symbol": self.symbol,
            "decimals": self.decimals,
        }


_ALL = (
    Currency("USD", "United States Dollar", "$", 2),
    Currency("EUR", "Euro", "€", 2),
    Currency("GBP", "Pound Sterling", "£", 2),
    Currency("CHF", "Swiss Franc", "CHF", 2),
    Currency("CAD", "Canadian Dollar", "CA$", 2),
    Currency("AUD", "Australian Dollar", "A$", 2),
    Currency("NZD", "New Zealand Dollar", "NZ$", 2),
    Currency("JPY", "Japanese Yen", "¥", 0),
    Currency("KRW", "South Korean Won", "₩", 0),
    Currency("CNY", "Chinese Yuan", "CN¥", 2),
    Currency("HKD", "Hong Kong Dollar", "HK$", 2),
    Currency("SGD", "Singapore Dollar", "S$", 2),
    Currency("INR", "Indian Rupee", "₹", 2),
    Currency("IDR", "Indonesian Rupiah", "Rp", 2),
    Currency("PHP", "Philippine Peso", "₱", 2),
    Currency("THB", "Thai Baht", "฿", 2),
    Currency("VND", "Vietnamese Dong", "₫", 0),
    Currency("MYR", "Malaysian Ringgit", "RM", 2),
    Currency("MXN", "Mexican Peso", "MX$", 2),
    Currency("BRL", "Brazilian Real", "R$", 2),
    Currency("COP", "Colombian Peso", "COL$", 2),
    Currency("ARS", "Argentine Peso", "AR$", 2),
    Currency("CLP", "Chilean Peso", "CLP$", 0),
    Currency("PEN", "Peruvian Sol", "S/", 2),
    Currency("NGN", "Nigerian Naira", "₦", 2),
    Currency("KES", "Kenyan Shilling", "KSh", 2),
    Currency("GHS", "Ghanaian Cedi", "GH₵", 2),
    Currency("UGX", "Ugandan Shilling", "USh", 0),
    Currency("XOF", "West African CFA Franc", "CFA", 0),
    Currency("ZAR", "South African Rand", "R", 2),
    Currency("EGP", "Egyptian Pound", "E£", 2),
    Currency("AED", "United Arab Emirates Dirham", "AED", 2),
    Currency("TRY", "Turkish Lira", "₺", 2),
    Currency("PLN", "Polish Zloty", "zł", 2),
    Currency("SEK", "Swedish Krona", "kr", 2),
    Currency("NOK", "Norwegian Krone", "kr", 2),
    Currency("DKK", "Danish Krone", "kr", 2),
    Currency("CZK", "Czech Koruna", "Kč", 2),
    # Not ISO 4217: carried for crypto quotes and accounts.
    Currency("USDC", "USD Coin", "USDC", 6, iso4217=False),
    Currency("BTC", "Bitcoin", "₿", 8, iso4217=False),
    Currency("SAT", "Satoshi", "sat", 0, iso4217=False),
)

CURRENCIES: Mapping[str, Currency] = MappingProxyType({c.code: c for c in _ALL})


def find(code: str) -> Currency | None:
    """The currency with this code, or None when the sandbox does not know it."""
    return CURRENCIES.get(code)


def is_iso4217(code: str) -> bool:
    """Whether ``code`` is a fiat ISO 4217 code the sandbox knows."""
    currency = CURRENCIES.get(code)
    return currency is not None and currency.iso4217
