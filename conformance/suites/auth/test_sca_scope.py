"""§5 Authentication — SCA applies to EU customers on EUR / USDC transfers; other customers
never see a challenge: their quotes carry no scaChallenge and never await authorization."""

from __future__ import annotations

import pytest

from conformance.contract import clauses
from conformance.contract.failures import check

pytestmark = [pytest.mark.resource("Quote"), pytest.mark.writes]

CLAUSE = clauses.AUTHENTICATION + " — SCA"


@pytest.mark.requirement("SCA-NON-SCA-NO-CHALLENGE")
def test_customers_outside_sca_never_see_a_challenge(money_customers, funding, quotes):
    """A customer living in the US, paying in EUR and in USD."""
    currencies = money_customers.currencies(("EUR", "USD"))
    wallet = funding.wallet(currencies)
    seen = {}
    for currency in currencies:
        corridor = wallet.corridor(currency, currency)
        quote = quotes.quote(corridor.body(amount=5_000))
        executed = quotes.execute_ok(quote["id"])
        seen[currency] = [(q.get("status"), q.get("scaChallenge")) for q in (quote, executed)]
    check(
        all(
            status != "PENDING_AUTHORIZATION" and challenge is None
            for answers in seen.values()
            for status, challenge in answers
        ),
        CLAUSE,
        "customers outside SCA never see a challenge: no scaChallenge, never PENDING_AUTHORIZATION",
        observed=seen,
    )
