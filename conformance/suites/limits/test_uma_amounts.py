"""§8 Limits — UMA amounts per currency lie within the ``minAmount`` and ``maxAmount`` of
the currency's ``supportedCurrencies`` entry: a UMA quote for more than ``maxAmount`` is
refused, one within the bounds is not. The test narrows USD's bounds with ``PATCH
/config`` (well below any other limit) and puts the configuration back afterwards; quotes
only, nothing is executed.
"""

from __future__ import annotations

import pytest

from conformance.configuration.bodies import editable_snapshot
from conformance.contract import clauses
from conformance.contract.failures import check

pytestmark = [pytest.mark.resource("Quote"), pytest.mark.writes]

CLAUSE = clauses.LIMITS + " — per-currency UMA amounts"
LOW, HIGH = 1_000, 50_000
# §8 does not say whether the amount sent or the amount delivered is bounded, nor how fees
# round. The probes hold under every reading: ABOVE sends twice maxAmount, so it stays above
# it delivered after any fee under half; WITHIN sends the middle of the bounds, so it is
# within them sent, and delivered after any fee up to (HIGH - LOW) / 2.
ABOVE = 2 * HIGH
WITHIN = (LOW + HIGH) // 2


def narrowed_usd(client):
    """PATCH USD's entry to [LOW, HIGH]; skips when USD is not supported."""
    body = editable_snapshot(client.get("/config").json)
    entries = body.get("supportedCurrencies") or []
    usd = [e for e in entries if e.get("currencyCode") == "USD"]
    if not usd:
        pytest.skip("the platform's supportedCurrencies have no USD entry")
    usd[0].update(minAmount=LOW, maxAmount=HIGH)
    response = client.patch("/config", json={"supportedCurrencies": entries})
    check(
        200 <= response.status < 300,
        clauses.PLATFORM_CONFIGURATION_ENDPOINTS + " — PATCH /config",
        "supportedCurrencies with minAmount and maxAmount per currency can be patched",
        expected="2xx",
        observed=(response.status, response.content[:300]),
        exchange=response.exchange,
    )


@pytest.mark.requirement("LIMIT-UMA-MIN-MAX")
def test_uma_amounts_outside_the_currency_bounds_are_refused(
    client, funding, quotes, transfers, restore_config
):
    wallet = funding.wallet(("USD",), funds=1_000)
    source = wallet.sources["USD"]["id"]
    narrowed_usd(client)
    above = quotes.create_quote(transfers.uma_body(source, transfers.uma_address(), ABOVE))
    check(
        400 <= above.status < 500,
        CLAUSE,
        "a UMA amount above its currency's supportedCurrencies maxAmount is refused",
        expected="4xx",
        observed=(above.status, above.content[:300]),
        exchange=above.exchange,
    )
    within = quotes.create_quote(transfers.uma_body(source, transfers.uma_address(), WITHIN))
    check(
        within.status in (200, 201),
        CLAUSE,
        "a UMA amount within minAmount and maxAmount is quoted",
        expected=201,
        observed=(within.status, within.content[:300]),
        exchange=within.exchange,
    )
