"""Quote request bodies (§4 Quotes and transactions — POST /quotes): builders and strategies.

Valid bodies lock either side and carry amounts far above any fee, with only the optional
fields whose values the interface shows (``description``, ``remittanceInformation`` up to
80 characters). A :class:`Corridor` names an internal source account and an external
destination account with their currencies; a :class:`Route` is any source and destination
shape of §2 Quote (an :class:`Endpoint` each: internal account, pullable external account,
``REALTIME_FUNDING``; external bank account or wallet, internal account, UMA address), which
:func:`quote_requests` draws from: a source shape, then a destination shape, then a route.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from hypothesis import strategies as st

__all__ = [
    "EXTERNAL",
    "INTERNAL",
    "MAX_AMOUNT",
    "MIN_AMOUNT",
    "PULL",
    "REALTIME",
    "SIDES",
    "UMA",
    "WALLET",
    "Corridor",
    "Endpoint",
    "Route",
    "account_destination",
    "account_source",
    "quote_body",
    "quote_requests",
    "realtime_source",
    "uma_destination",
    "without",
]

SIDES = ("SENDING", "RECEIVING")
# Smallest units: from 10.00 to 50,000.00 of a two-decimal currency, far above fixed fees.
MIN_AMOUNT = 1_000
MAX_AMOUNT = 5_000_000
# Texts every reasonable reading accepts (remittance travels in ACH addenda, wire OBI, ...).
_TEXT = st.text(
    alphabet="ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789 -./",
    min_size=1,
    max_size=80,
)


@dataclass(frozen=True, slots=True)
class Corridor:
    """A source internal account and a destination external account, with currencies."""

    source_id: str
    source_currency: str
    destination_id: str
    destination_currency: str

    @property
    def same_currency(self) -> bool:
        return self.source_currency == self.destination_currency

    def __str__(self) -> str:
        return f"{self.source_currency}->{self.destination_currency}"

    def body(self, side: str = "SENDING", amount: int = 10_000, **extra: Any) -> dict[str, Any]:
        """A POST /quotes body along the corridor."""
        return quote_body(self.source_id, self.destination_id, side, amount, **extra)

    @property
    def route(self) -> Route:
        """The corridor as a :class:`Route`."""
        return Route(
            account_source(self.source_id, self.source_currency),
            account_destination(self.destination_id, self.destination_currency),
        )


# The shapes of §2 Quote source and destination the generated requests use.
INTERNAL = "internal account"
PULL = "pullable external account"
REALTIME = "REALTIME_FUNDING"
EXTERNAL = "external account"
WALLET = "external wallet"
UMA = "UMA address"


@dataclass(frozen=True, slots=True)
class Endpoint:
    """A quote's ``source`` or ``destination`` object, with its shape and currency (None
    where the target decides it, e.g. a UMA address)."""

    shape: str
    currency: str | None
    fields: tuple[tuple[str, str], ...]

    def json(self) -> dict[str, str]:
        return dict(self.fields)

    def __str__(self) -> str:
        return self.shape + (f" {self.currency}" if self.currency else "")


def account_source(account_id: str, currency: str, shape: str = INTERNAL) -> Endpoint:
    """``{sourceType: ACCOUNT, accountId}``: an internal or a pullable external account."""
    return Endpoint(shape, currency, (("sourceType", "ACCOUNT"), ("accountId", account_id)))


def realtime_source(customer_id: str, currency: str) -> Endpoint:
    """``{sourceType: REALTIME_FUNDING, customerId, currency}``: just-in-time funding."""
    fields = (("sourceType", REALTIME), ("customerId", customer_id), ("currency", currency))
    return Endpoint(REALTIME, currency, fields)


def account_destination(account_id: str, currency: str, shape: str = EXTERNAL) -> Endpoint:
    """``{destinationType: ACCOUNT, accountId}``: an external or an internal account."""
    fields = (("destinationType", "ACCOUNT"), ("accountId", account_id))
    return Endpoint(shape, currency, fields)


def uma_destination(field: str, address: str) -> Endpoint:
    """``{destinationType: UMA_ADDRESS, <field>: address}`` (the field name is not shown)."""
    return Endpoint(UMA, None, (("destinationType", "UMA_ADDRESS"), (field, address)))


@dataclass(frozen=True, slots=True)
class Route:
    """A source and a destination; ``amounts`` bounds the locked amount when the target
    states bounds for it (a UMA amount's minAmount and maxAmount)."""

    source: Endpoint
    destination: Endpoint
    amounts: tuple[int, int] | None = None

    @property
    def shape(self) -> tuple[str, str]:
        return self.source.shape, self.destination.shape

    @property
    def same_currency(self) -> bool:
        return self.destination.currency in (None, self.source.currency)

    def __str__(self) -> str:
        return f"{self.source} -> {self.destination}"

    def body(self, side: str = "SENDING", amount: int = 10_000, **extra: Any) -> dict[str, Any]:
        """A POST /quotes body along the route."""
        return {
            "source": self.source.json(),
            "destination": self.destination.json(),
            "lockedCurrencySide": side,
            "lockedCurrencyAmount": amount,
            **extra,
        }

    def clamp(self, low: int, high: int) -> tuple[int, int]:
        """``[low, high]`` narrowed to the route's bounds (the bounds alone if disjoint)."""
        if self.amounts is None:
            return low, high
        bounded = max(low, self.amounts[0]), min(high, self.amounts[1])
        return bounded if bounded[0] <= bounded[1] else self.amounts


def quote_body(
    source_id: str,
    destination_id: str,
    side: str = "SENDING",
    amount: int = 10_000,
    **extra: Any,
) -> dict[str, Any]:
    """A POST /quotes body from an ACCOUNT source to an ACCOUNT destination."""
    return {
        "source": {"sourceType": "ACCOUNT", "accountId": source_id},
        "destination": {"destinationType": "ACCOUNT", "accountId": destination_id},
        "lockedCurrencySide": side,
        "lockedCurrencyAmount": amount,
        **extra,
    }


def without(body: Mapping[str, Any], *path: str) -> dict[str, Any]:
    """A deep copy of ``body`` with the field at ``path`` removed."""
    copied = copy.deepcopy(dict(body))
    node: Any = copied
    for key in path[:-1]:
        node = node[key]
    node.pop(path[-1], None)
    return copied


def _route(draw: st.DrawFn, routes: Sequence[Route]) -> Route:
    """A source shape, then a destination shape it pairs with, then a route of the two:
    every shape is as likely as any other, however many routes it has."""
    source = draw(st.sampled_from(sorted({r.source.shape for r in routes})))
    paired = [r for r in routes if r.source.shape == source]
    destination = draw(st.sampled_from(sorted({r.destination.shape for r in paired})))
    return draw(st.sampled_from([r for r in paired if r.destination.shape == destination]))


@st.composite
def quote_requests(
    draw: st.DrawFn,
    routes: Sequence[Route],
    *,
    min_amount: int = MIN_AMOUNT,
    max_amount: int = MAX_AMOUNT,
) -> tuple[Route, dict[str, Any]]:
    """(route, body) of a valid quote request: either side locked, optional texts."""
    route = _route(draw, routes)
    side = draw(st.sampled_from(SIDES))
    low, high = route.clamp(min_amount, max_amount)
    # half the draws above a hundredth of the range, where a fee taken on the wrong base
    # differs from the right one by more than a rounding step
    middle = min(max(low, high // 50), high)
    amount = draw(st.one_of(st.integers(low, middle), st.integers(middle, high)))
    extra: dict[str, Any] = {}
    if draw(st.booleans()):
        extra["description"] = draw(_TEXT)
    if draw(st.booleans()):
        extra["remittanceInformation"] = draw(_TEXT)
    return route, route.body(side, amount, **extra)
