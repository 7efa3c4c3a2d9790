"""Every source and destination shape a generated quote may take (§1 Funding, §2 Quote
``source`` and ``destination``), built from a funded customer, and which of them the target
prices.

Sources: the customer's internal account in each currency (prefunded), its USD bank account
as a pull source, and ``REALTIME_FUNDING`` in each currency (just-in-time). Destinations: its
external bank account in each currency, a USDC wallet (type name from the profile's
``[field_names] wallet_account_type``), its internal account in another currency, and a UMA
address (field name from ``[field_names] uma_address``). A pull source pays into the
customer's internal accounts only: money is pulled in (our pairing; the interface shows no
pull-and-pay-out).

Which external accounts have direct pull, whether just-in-time funding is enabled and
whether UMA or wallets are offered are the target's to say: :func:`probe` sends one plain
request per pair of shapes and a ``400`` drops that pair with an advisory
(:data:`UNSUPPORTED_ADVISORY`), as does a wallet the target does not register
(:func:`wallet_payee`). The prefunded corridor (internal account to external
account) is never dropped: every target must price it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from conformance.contract import clauses
from conformance.exchange.client import ApiResponse, TargetClient
from conformance.ground.profile import TargetProfile
from conformance.payments.funding import Wallet
from conformance.payments.quote_bodies import (
    EXTERNAL,
    INTERNAL,
    PULL,
    WALLET,
    Endpoint,
    Route,
    account_destination,
    account_source,
    realtime_source,
    uma_destination,
)
from conformance.payments.quotes import Quotes
from conformance.payments.transfer_flows import Transfers

__all__ = [
    "PROBE_AMOUNT",
    "UNSUPPORTED_ADVISORY",
    "WALLET_CURRENCY",
    "Answer",
    "Payee",
    "Shapes",
    "probe",
    "routes",
    "wallet_payee",
]

# A probe locks this much of the sending amount: large enough that a variable fee taken on
# the wrong base differs from the right one by more than a rounding step.
PROBE_AMOUNT = 2_500_000
UNSUPPORTED_ADVISORY = "quote shape not priced"
PULLABLE_CURRENCY = "USD"  # the suite's US bank account (US_ACCOUNT) is its pull source
REQUIRED = (INTERNAL, EXTERNAL)
WALLET_CURRENCY = "USDC"


@dataclass(frozen=True, slots=True)
class Answer:
    """One request the target answered, with the route it went along."""

    route: Route
    body: dict[str, Any]
    response: ApiResponse


@dataclass(slots=True)
class Shapes:
    """The routes the target prices, the probes' answers and the pairs it refused."""

    routes: list[Route] = field(default_factory=list)
    answers: list[Answer] = field(default_factory=list)
    unsupported: list[str] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class Payee:
    """A destination the target may decline to register: its endpoint, or why not."""

    endpoint: Endpoint | None
    refusal: str | None = None


def wallet_payee(transfers: Transfers, customer_id: str) -> Payee:
    """The customer's external USDC wallet, registered now; a refusal is no failure here
    (which wallets a platform takes is its own), it only drops the shape."""
    body = transfers.wallet_body(customer_id, WALLET_CURRENCY)
    response = transfers.client.post("/customers/external-accounts", json=body)
    if response.status in (200, 201) and isinstance(response.json, Mapping):
        account_id = str(response.json.get("id"))
        return Payee(account_destination(account_id, WALLET_CURRENCY, WALLET))
    return Payee(
        None,
        f"{clauses.QUOTE}: {UNSUPPORTED_ADVISORY}: the target did not register a {WALLET_CURRENCY} "
        f"wallet, so generated requests pay none: {response.status} {response.content[:200]!r}",
    )


def _bounds(client: TargetClient, currency: str) -> tuple[int, int] | None:
    """The ``minAmount``/``maxAmount`` of ``currency``'s supportedCurrencies entry."""
    entries = client.get("/config").json.get("supportedCurrencies") or []
    for entry in entries:
        if isinstance(entry, Mapping) and entry.get("currencyCode") == currency:
            low, high = entry.get("minAmount"), entry.get("maxAmount")
            if isinstance(low, int) and isinstance(high, int) and low <= high:
                return low, high
    return None


def routes(
    client: TargetClient,
    profile: TargetProfile,
    wallet: Wallet,
    uma_address: str,
    payees: Sequence[Endpoint] = (),
) -> list[Route]:
    """Every route between the wallet's shapes that the interface shows; ``payees`` are
    further external destinations (a wallet)."""
    customer = wallet.customer_id
    internal = {c: account_source(a["id"], c) for c, a in wallet.sources.items()}
    sources = [*internal.values()]
    if PULLABLE_CURRENCY in wallet.destinations:
        pulled = wallet.destinations[PULLABLE_CURRENCY]["id"]
        sources.append(account_source(pulled, PULLABLE_CURRENCY, PULL))
    sources += [realtime_source(customer, c) for c in wallet.sources]
    externals = [account_destination(a["id"], c) for c, a in wallet.destinations.items()]
    externals += payees
    internals = [account_destination(a["id"], c, INTERNAL) for c, a in wallet.sources.items()]
    uma = uma_destination(profile.field_name("uma_address"), uma_address)
    found: list[Route] = []
    for source in sources:
        if source.shape == PULL:
            found += [Route(source, d) for d in internals]
            continue
        found += [Route(source, d) for d in externals]
        # another internal account of the same customer (not the source itself)
        own = source.json().get("accountId")
        found += [Route(source, d) for d in internals if d.json()["accountId"] != own]
        assert source.currency is not None
        found.append(Route(source, uma, _bounds(client, source.currency)))
    return found


def probe(quotes: Quotes, candidates: Sequence[Route]) -> Shapes:
    """One plain ``SENDING`` request per pair of shapes; a ``400`` drops an optional pair."""
    shapes = Shapes()
    pairs: dict[tuple[str, str], list[Route]] = {}
    for route in candidates:
        pairs.setdefault(route.shape, []).append(route)
    for pair, members in pairs.items():
        first = members[0]
        low, high = first.clamp(PROBE_AMOUNT, PROBE_AMOUNT)
        body = first.body("SENDING", min(max(PROBE_AMOUNT, low), high))
        response = quotes.create_quote(body)
        if response.status == 400 and pair != REQUIRED:
            shapes.unsupported.append(
                f"{clauses.QUOTE}: {UNSUPPORTED_ADVISORY}: a quote from {pair[0]} to {pair[1]} "
                f"({first}) was refused, so generated requests skip that pair: "
                f"{response.content[:200]!r}"
            )
            continue
        shapes.routes += members
        shapes.answers.append(Answer(first, body, response))
    return shapes
