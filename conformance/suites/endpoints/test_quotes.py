"""§4 Quotes and transactions — POST /quotes: what a valid request gets, which fields are
required, and what may be left out."""

from __future__ import annotations

import pytest

from conformance.contract import clauses
from conformance.contract.failures import check
from conformance.exchange.assertions import assert_invalid_input, required_json
from conformance.payments.quote_bodies import without

pytestmark = [pytest.mark.resource("Quote"), pytest.mark.writes]

CLAUSE = clauses.QUOTES_ENDPOINTS


@pytest.fixture(scope="module")
def wallet(money_customers, funding):
    return funding.wallet(money_customers.currencies())


@pytest.mark.requirement(
    "QUOTE-CREATE-201",
    "QUOTE-PAYMENT-RAIL-OPTIONAL",
    "QUOTE-OPTIONAL-TEXT-FIELDS",
    "QUOTE-IMMEDIATE-EXECUTE-SOURCES",
)
@pytest.mark.parametrize(
    "extra",
    [
        {},
        {"description": "Invoice 2025-117"},
        {"remittanceInformation": "INV-2025-117"},
        {"immediatelyExecute": False},
    ],
    ids=["required-fields-only", "description", "remittance-information", "explicit-false"],
)
def test_a_valid_quote_request_answers_201_with_a_pending_quote(quotes, wallet, extra):
    """No paymentRail (the service chooses one), no immediatelyExecute (false by default), no
    purposeOfPayment (its values are not shown)."""
    response = quotes.create_quote(wallet.corridor().body(**extra))
    quote = required_json(
        response, CLAUSE, "POST /quotes with a valid request answers 201", status=201
    )
    check(
        quote.get("status") == "PENDING",
        CLAUSE,
        "immediatelyExecute is optional and false by default: the quote is created, not executed",
        expected="PENDING",
        observed=quote.get("status"),
        exchange=response.exchange,
        requirement="QUOTE-IMMEDIATE-EXECUTE-SOURCES",
    )
    if "description" in extra:
        check(
            quote.get("description") == extra["description"],
            CLAUSE,
            "a description given is returned on the quote",
            expected=extra["description"],
            observed=quote.get("description"),
            exchange=response.exchange,
            requirement="QUOTE-OPTIONAL-TEXT-FIELDS",
        )


# the rule that requires each field of a quote request (§4 Quotes and transactions)
FIELD_REQUIREMENTS = {
    "source": "QUOTE-SOURCE-REQUIRED",
    "destination": "QUOTE-DESTINATION-REQUIRED",
    "lockedCurrencySide": "QUOTE-LOCKED-SIDE-REQUIRED",
    "lockedCurrencyAmount": "QUOTE-LOCKED-AMOUNT-REQUIRED",
}
REQUIRED = [
    (("source",), ("source",)),
    (("source", "accountId"), ("source", "accountId")),
    (("destination",), ("destination",)),
    (("lockedCurrencySide",), ("lockedCurrencySide",)),
    (("lockedCurrencyAmount",), ("lockedCurrencyAmount",)),
]


@pytest.mark.requirement(
    "QUOTE-SOURCE-REQUIRED",
    "QUOTE-DESTINATION-REQUIRED",
    "QUOTE-LOCKED-SIDE-REQUIRED",
    "QUOTE-LOCKED-AMOUNT-REQUIRED",
)
@pytest.mark.parametrize(("removed", "path"), REQUIRED, ids=[".".join(r) for r, _ in REQUIRED])
def test_a_quote_request_lacking_a_required_field_is_refused(quotes, wallet, removed, path):
    body = without(wallet.corridor().body(), *removed)
    assert_invalid_input(
        quotes.create_quote(body), [path], CLAUSE, requirement=FIELD_REQUIREMENTS[removed[0]]
    )


@pytest.mark.requirement("QUOTE-LOCKED-SIDE-REQUIRED", "QUOTE-LOCKED-AMOUNT-REQUIRED")
@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("lockedCurrencySide", "BOTH"),
        ("lockedCurrencySide", "sending"),
        ("lockedCurrencyAmount", "10000"),
        ("lockedCurrencyAmount", 100.5),
    ],
)
def test_a_quote_request_with_an_invalid_locked_side_or_amount_is_refused(
    quotes, wallet, field, value
):
    body = {**wallet.corridor().body(), field: value}
    assert_invalid_input(
        quotes.create_quote(body), [(field,)], CLAUSE, requirement=FIELD_REQUIREMENTS[field]
    )
