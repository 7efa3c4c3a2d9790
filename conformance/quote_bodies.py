"""Quote request bodies (§4 Quotes and transactions — POST /quotes): builders and strategies.

Valid bodies go from an internal account to an external account (a prefunded source), lock
either side, and carry amounts far above any fee, with only the optional fields whose
values the interface shows (``description``, ``remittanceInformation`` up to 80
characters). A :class:`Corridor` names the two accounts and their currencies.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from hypothesis import strategies as st

__all__ = [
    "MAX_AMOUNT",
    "MIN_AMOUNT",
    "SIDES",
    "Corridor",
    "quote_body",
    "quote_requests",
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


@st.composite
def quote_requests(
    draw: st.DrawFn,
    corridors: Sequence[Corridor],
    *,
    min_amount: int = MIN_AMOUNT,
    max_amount: int = MAX_AMOUNT,
) -> tuple[Corridor, dict[str, Any]]:
    """(corridor, body) of a valid quote request: either side locked, optional texts."""
    corridor = draw(st.sampled_from(list(corridors)))
    side = draw(st.sampled_from(SIDES))
    # half the draws above a hundredth of the range, where a fee taken on the wrong base
    # differs from the right one by more than a rounding step
    middle = max(min_amount, max_amount // 50)
    amount = draw(st.one_of(st.integers(min_amount, middle), st.integers(middle, max_amount)))
    extra: dict[str, Any] = {}
    if draw(st.booleans()):
        extra["description"] = draw(_TEXT)
    if draw(st.booleans()):
        extra["remittanceInformation"] = draw(_TEXT)
    return corridor, corridor.body(side, amount, **extra)
