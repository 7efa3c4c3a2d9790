"""The quote request strategy of ``conformance.payments.quote_bodies``: routes of every source and
destination shape of §2 Quote, bodies that carry them, and amounts within a route's
bounds."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from conformance.payments.quote_bodies import (
    EXTERNAL,
    INTERNAL,
    PULL,
    REALTIME,
    UMA,
    Corridor,
    Route,
    account_destination,
    account_source,
    quote_requests,
    realtime_source,
    uma_destination,
)

UMA_BOUNDS = (5_000, 6_000)
ROUTES = [
    Route(account_source("ia-usd", "USD"), account_destination("ea-eur", "EUR")),
    Route(account_source("ia-usd", "USD"), account_destination("ea-usd", "USD")),
    Route(account_source("ea-usd", "USD", PULL), account_destination("ia-eur", "EUR", INTERNAL)),
    Route(realtime_source("c1", "USD"), uma_destination("umaAddress", "$a@b.example"), UMA_BOUNDS),
]


def test_bodies_carry_each_shape_of_source_and_destination():
    pulled, uma = ROUTES[2].body("RECEIVING", 1_234), ROUTES[3].body()
    assert pulled == {
        "source": {"sourceType": "ACCOUNT", "accountId": "ea-usd"},
        "destination": {"destinationType": "ACCOUNT", "accountId": "ia-eur"},
        "lockedCurrencySide": "RECEIVING",
        "lockedCurrencyAmount": 1_234,
    }
    assert uma["source"] == {"sourceType": REALTIME, "customerId": "c1", "currency": "USD"}
    assert uma["destination"] == {"destinationType": "UMA_ADDRESS", "umaAddress": "$a@b.example"}
    assert [r.same_currency for r in ROUTES] == [False, True, False, True]
    assert [r.shape for r in ROUTES] == [
        (INTERNAL, EXTERNAL),
        (INTERNAL, EXTERNAL),
        (PULL, INTERNAL),
        (REALTIME, UMA),
    ]


def test_a_corridor_is_the_route_from_an_internal_to_an_external_account():
    corridor = Corridor("ia", "USD", "ea", "EUR")
    assert corridor.route.body("SENDING", 99) == corridor.body("SENDING", 99)
    assert corridor.route.shape == (INTERNAL, EXTERNAL)


@settings(max_examples=60, derandomize=True)
@given(st.data())
def test_amounts_stay_within_a_routes_bounds(data):
    route, body = data.draw(quote_requests(ROUTES))
    low, high = route.amounts or (1_000, 5_000_000)
    assert low <= body["lockedCurrencyAmount"] <= high
    assert body["source"] == route.source.json()


def test_every_source_shape_is_drawn_however_few_routes_it_has():
    seen: set[str] = set()

    @settings(max_examples=40, derandomize=True)
    @given(quote_requests(ROUTES))
    def draw(request):
        seen.add(request[0].source.shape)

    draw()
    assert seen == {INTERNAL, PULL, REALTIME}
