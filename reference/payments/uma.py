"""UMA destinations (§2 Quote ``destination`` of type ``UMA_ADDRESS``; SANDBOX.md,
"Just-in-time funding, pull sources, UMA and on-chain transfers").

The address field is ``umaAddress`` (not shown; the suite reads it from the profile's
``[field_names] uma_address``), a ``$username@domain`` string. The receiving VASP takes the
sending currency (our choice: the sandbox has no counterparty to negotiate another). The
last three characters of the username part select the scenario (§4 Sandbox behaviours), as
for external accounts: ``005`` timeout, ``099`` returned, anything else settles.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from reference.configuration.store import load_config
from reference.kernel.seams import seam
from reference.kernel.services import Services
from reference.kernel.validation import Problems

UMA_ADDRESS = "UMA_ADDRESS"
ADDRESS_FIELD = "umaAddress"
# $username@domain: the umaAddress pattern of the served document (requests/quote-create.json)
ADDRESS = re.compile(r"\$[A-Za-z0-9._+-]{1,64}@[A-Za-z0-9.-]+\.[A-Za-z]{2,}")

SCENARIO = seam(
    "uma.scenario",
    "the scenario digits of a UMA destination, the end of its username part (context: address)",
)
AMOUNT_BOUNDS = seam(
    "uma.amount_bounds",
    "the (minAmount, maxAmount) a UMA amount must lie within, each None when unbounded"
    " (context: currency)",
)


@dataclass(frozen=True, slots=True)
class UmaDestination:
    """A UMA address as a quote's destination; owner and currency come from the source."""

    address: str
    customer_id: str | None = None
    currency: str = "USD"
    status: str = "ACTIVE"

    @property
    def id(self) -> str:
        return self.address


def destination(problems: Problems, obj: Mapping[str, Any]) -> UmaDestination | None:
    """``{destinationType: UMA_ADDRESS, umaAddress}``, checked."""
    value = problems.required(obj, ADDRESS_FIELD, "destination")
    if value is None or problems.string(f"destination.{ADDRESS_FIELD}", value) is None:
        return None
    if not ADDRESS.fullmatch(value):
        problems.add(f"destination.{ADDRESS_FIELD}", "FORMAT", "must be $username@domain")
        return None
    return UmaDestination(address=value)


def bind(destination: Any, source: Any) -> Any:
    """A UMA destination pays the source's owner's counterparty in the source currency."""
    if isinstance(destination, UmaDestination) and source is not None:
        return replace(destination, customer_id=source.customer_id, currency=source.currency)
    return destination


def destination_json(destination: UmaDestination) -> dict[str, Any]:
    """The quote's ``destination`` object."""
    return {"destinationType": UMA_ADDRESS, ADDRESS_FIELD: destination.address}


def scenario(services: Services, fields: Mapping[str, Any]) -> str:
    """The scenario digits of a UMA destination: the end of the username part."""
    destination = fields.get("destination", {})
    address = str(destination.get(ADDRESS_FIELD, ""))
    digits = address.split("@", 1)[0][-3:]
    return services.settings.seams.apply(SCENARIO, digits, address=address)


def is_uma(fields: Mapping[str, Any]) -> bool:
    """Whether a quote's (or transaction's) destination is a UMA address."""
    return bool(fields.get("destination", {}).get("destinationType") == UMA_ADDRESS)


def check_amount(
    services: Services, platform_id: str, problems: Problems, destination: Any, amount: Any
) -> None:
    """§8 Limits: a UMA amount lies within its currency's ``supportedCurrencies`` entry's
    ``minAmount`` and ``maxAmount`` (the locked amount: a UMA payment is in one currency)."""
    if not isinstance(destination, UmaDestination) or not isinstance(amount, int):
        return
    entries = load_config(services.db, platform_id).supported_currencies
    entry = next((e for e in entries if e.get("currencyCode") == destination.currency), {})
    bounds: tuple[Any, Any] = (entry.get("minAmount"), entry.get("maxAmount"))
    low, high = services.settings.seams.apply(AMOUNT_BOUNDS, bounds, currency=destination.currency)
    if isinstance(low, int) and amount < low:
        problems.conflict("lockedCurrencyAmount", "UMA_MIN_AMOUNT", f"UMA amounts start at {low}")
    if isinstance(high, int) and amount > high:
        problems.conflict("lockedCurrencyAmount", "UMA_MAX_AMOUNT", f"UMA amounts end at {high}")
