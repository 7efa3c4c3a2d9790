"""§2 Resources and their fields — Quote, as POST /quotes returns it, same and cross currency.

The client checks every quote against the Quote schema (currency objects with all four
fields, integer amounts, a numeric rate); these tests check what a schema cannot: that the
quote describes the request it answers.
"""

from __future__ import annotations

import pytest

from conformance.contract import clauses
from conformance.contract.failures import check
from conformance.ground.timestamps import parse_timestamp

pytestmark = [pytest.mark.resource("Quote"), pytest.mark.writes]

CLAUSE = clauses.QUOTE
RATE_DETAILS = (
    "counterpartyMultiplier",
    "counterpartyFixedFee",
    "serviceApiMultiplier",
    "serviceApiFixedFee",
    "serviceApiVariableFeeRate",
    "serviceApiVariableFeeAmount",
)
# ISO 4217 minor units of the currencies the suite moves money in.
MINOR_UNITS = {"USD": 2, "EUR": 2, "GBP": 2, "MXN": 2, "JPY": 0}
STATUSES = {"PENDING", "PROCESSING", "COMPLETED", "PENDING_AUTHORIZATION", "EXPIRED"}


@pytest.fixture(scope="module")
def wallet(money_customers, funding):
    return funding.wallet(money_customers.currencies())


@pytest.fixture(params=["same-currency", "cross-currency"])
def corridor(request, wallet):
    same = request.param == "same-currency"
    chosen = [c for c in wallet.corridors() if c.same_currency == same]
    if not chosen:
        pytest.skip("the platform supports no currency but USD, so no cross-currency corridor")
    return chosen[-1]


@pytest.mark.requirement(
    "QUOTE-STATUS-VALUES",
    "QUOTE-TIMESTAMPS",
    "QUOTE-SOURCE-DESTINATION-SHAPE",
    "QUOTE-AMOUNT-FIELDS",
    "QUOTE-FEE-FIELDS",
    "COMMON-CURRENCY-DECIMALS",
)
@pytest.mark.parametrize("side", ["SENDING", "RECEIVING"])
def test_a_quote_describes_the_request_it_answers(quotes, corridor, advisory, side):
    body = corridor.body(side, 54_321)
    quote = quotes.quote(body)
    check(
        isinstance(quote.get("status"), str) and quote["status"],
        CLAUSE,
        "a quote's status is a string (PENDING, PROCESSING, COMPLETED, PENDING_AUTHORIZATION, "
        "EXPIRED are listed; the complete set is not shown)",
        observed=quote.get("status"),
        requirement="QUOTE-STATUS-VALUES",
    )
    if quote["status"] not in STATUSES:
        advisory(f"{CLAUSE}: a new quote's status {quote['status']!r} is not a listed value")
    created, expires = (
        parse_timestamp(quote.get("createdAt")),
        parse_timestamp(quote.get("expiresAt")),
    )
    check(
        created is not None and expires is not None and created < expires,
        CLAUSE,
        "a quote carries createdAt and expiresAt timestamps, the expiry after the creation",
        observed={k: quote.get(k) for k in ("createdAt", "expiresAt")},
        requirement="QUOTE-TIMESTAMPS",
    )
    source, destination = quote.get("source") or {}, quote.get("destination") or {}
    check(
        (source.get("sourceType"), source.get("accountId")) == ("ACCOUNT", corridor.source_id)
        and (destination.get("destinationType"), destination.get("accountId"))
        == ("ACCOUNT", corridor.destination_id),
        CLAUSE,
        "source is {sourceType: ACCOUNT, accountId} and destination {destinationType: "
        "ACCOUNT, accountId, paymentRail?}, as requested",
        expected={"source": body["source"], "destination": body["destination"]},
        observed={"source": source, "destination": destination},
        requirement="QUOTE-SOURCE-DESTINATION-SHAPE",
    )
    currencies = {
        "sendingCurrency": corridor.source_currency,
        "receivingCurrency": corridor.destination_currency,
    }
    for name, code in currencies.items():
        currency = quote.get(name) or {}
        check(
            currency.get("code") == code,
            CLAUSE,
            f"{name} is the currency of the {name[:-8].lower()} account",
            expected=code,
            observed=currency,
        )
        if code in MINOR_UNITS:
            check(
                currency.get("decimals") == MINOR_UNITS[code],
                clauses.CONVENTIONS,
                "every currency object carries decimals, the decimal places of the currency's "
                "smallest unit",
                expected=MINOR_UNITS[code],
                observed=currency,
                requirement="COMMON-CURRENCY-DECIMALS",
            )


@pytest.mark.requirement("FEES-RATE-DETAILS-FIELDS")
def test_rate_details_name_the_service_and_counterparty_components(quotes, corridor):
    quote = quotes.quote(corridor.body("SENDING", 54_321))
    details = quote.get("rateDetails")
    missing = [n for n in RATE_DETAILS if not isinstance(details, dict) or n not in details]
    check(
        not missing,
        CLAUSE,
        "rateDetails carries counterpartyMultiplier, counterpartyFixedFee, serviceApiMultiplier, "
        "serviceApiFixedFee, serviceApiVariableFeeRate and serviceApiVariableFeeAmount",
        expected=list(RATE_DETAILS),
        observed=details,
        hint=f"missing: {missing}",
    )
    rate = details["serviceApiVariableFeeRate"]
    check(
        0 <= rate < 1,
        CLAUSE,
        "serviceApiVariableFeeRate is a fraction (0.003 = 0.3%)",
        observed=rate,
    )
