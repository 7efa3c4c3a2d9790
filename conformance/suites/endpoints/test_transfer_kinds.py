"""§1 What the service does, §4 Quotes and transactions — every kind of transfer goes
through ``POST /quotes``: same-currency, cross-currency, fiat-to-crypto, crypto-to-fiat
and UMA quotes are all created (201) for one approved customer. Quotes only: nothing is
executed, so no account needs funds.
"""

from __future__ import annotations

import pytest

from conformance.contract import clauses
from conformance.contract.failures import check
from conformance.payments.quote_bodies import quote_body

pytestmark = [pytest.mark.resource("Quote"), pytest.mark.writes]

CLAUSE = clauses.WHAT_THE_SERVICE_DOES + " — 3. Quotes"
AMOUNT = 20_000


@pytest.mark.requirement("QUOTE-ALL-TRANSFER-KINDS")
def test_every_kind_of_transfer_is_quoted_with_post_quotes(
    money_customers, external_accounts, funding, quotes, transfers
):
    currencies = money_customers.currencies(("USD", "EUR"))
    if "USD" not in currencies:
        pytest.skip("the platform's supportedCurrencies do not include USD")
    customer = money_customers.approved_customer(currencies)
    customer_id = customer["id"]
    usd = funding.active_account(customer_id, "USD")["id"]
    usdc = funding.active_account(customer_id, "USDC", "INTERNAL_CRYPTO")["id"]
    usd_outside = external_accounts.external_account(customer_id, "USD")["id"]
    bodies = {
        "same-currency": quote_body(usd, usd_outside, amount=AMOUNT),
        "fiat-to-crypto": quote_body(
            usd, transfers.wallet_account(customer_id)["id"], amount=AMOUNT
        ),
        "crypto-to-fiat": quote_body(usdc, usd_outside, "RECEIVING", AMOUNT),
        "UMA": transfers.uma_body(usd, transfers.uma_address(), AMOUNT),
    }
    if "EUR" in currencies:
        eur_outside = external_accounts.external_account(customer_id, "EUR")["id"]
        bodies["cross-currency"] = quote_body(usd, eur_outside, amount=AMOUNT)
    answers = {kind: quotes.create_quote(body) for kind, body in bodies.items()}
    refused = {
        kind: (r.status, r.content[:200])
        for kind, r in answers.items()
        if r.status not in (200, 201)
    }
    check(
        not refused,
        CLAUSE,
        "every transfer goes through a quote: cross-currency, fiat-to-crypto, crypto-to-fiat, "
        "UMA and same-currency transfers are all created with POST /quotes",
        expected="201 for each kind",
        observed=refused,
    )
