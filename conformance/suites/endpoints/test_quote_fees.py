"""§4 Quotes and transactions, rules 1, 3 and 4 — the fee and rate arithmetic of quotes.

Generated quote requests (either side locked, same and cross currency among the currencies
the platform supports, from every source shape — an internal account, a pullable external
account, ``REALTIME_FUNDING`` — to every destination shape — an external bank account or
wallet, another internal account of the customer, a UMA address) must come back with
amounts that satisfy rule 1 (same currency: rate 1) and rule 3 (fees come off the sending
amount, the variable fee is assessed on it, the net is converted at the quoted rate). The
checks and their rounding tolerance are in ``conformance.payments.quote_arithmetic``; the shapes,
and which of them the target prices, in ``conformance.payments.quote_shapes``.
"""

from __future__ import annotations

import pytest
from hypothesis import given

from conformance.contract import clauses
from conformance.contract.failures import check, fail
from conformance.exchange.assertions import required_json
from conformance.payments import quote_shapes
from conformance.payments.quote_arithmetic import discrepancies
from conformance.payments.quote_bodies import quote_requests
from conformance.payments.transaction_history import amount_of

pytestmark = [pytest.mark.resource("Quote"), pytest.mark.writes]

CLAUSE = clauses.QUOTES_ENDPOINTS


@pytest.fixture(scope="module")
def wallet(money_customers, funding):
    return funding.wallet(money_customers.currencies())


def _cross_currency_or_skip(chosen):
    if not chosen:
        pytest.skip(
            "the platform supports one currency of USD and EUR only, so no cross-currency "
            "corridor exists"
        )
    return chosen


@pytest.fixture(params=["same-currency", "cross-currency"])
def corridors(request, wallet):
    same = request.param == "same-currency"
    return _cross_currency_or_skip([c for c in wallet.corridors() if c.same_currency == same])


@pytest.fixture(scope="module")
def payee(wallet, transfers):
    """The customer's external wallet, if the target registers one."""
    return quote_shapes.wallet_payee(transfers, wallet.customer_id)


@pytest.fixture(params=["same-currency", "cross-currency"])
def routes(request, client, profile, wallet, payee, transfers, advisory):
    """Every shape of source and destination, in the currency relation of the param."""
    if payee.refusal:
        advisory(payee.refusal)
    payees = [payee.endpoint] if payee.endpoint else []
    every = quote_shapes.routes(client, profile, wallet, transfers.uma_address(), payees)
    same = request.param == "same-currency"
    return _cross_currency_or_skip([r for r in every if r.same_currency == same])


def _follows_the_arithmetic(route, body, response):
    quote = required_json(
        response,
        CLAUSE,
        f"POST /quotes with a valid {route} request answers 201 with the Quote",
        status=201,
    )
    found = discrepancies(body, quote)
    if found:
        first = found[0]
        fail(
            first.clause,
            first.statement,
            expected=first.expected,
            observed=first.observed,
            hint=f"{first.requirement} ({route}); {len(found)} rule(s) broken: "
            + ", ".join(d.requirement for d in found),
            exchange=response.exchange,
            requirement=first.requirement,
        )


@pytest.mark.runs_long  # its examples' requests go one after another
@pytest.mark.requirement(
    "QUOTE-SAME-CURRENCY-RATE-ONE",
    "QUOTE-LOCKED-AMOUNT-HONOURED",
    "QUOTE-FEE-FIELDS",
    "FEES-DEDUCTED-FROM-SENDING",
    "FEES-VARIABLE-SENDING-LOCKED",
    "FEES-VARIABLE-RECEIVING-LOCKED",
    "FEES-CROSS-CURRENCY-ORDER",
)
def test_generated_quotes_follow_the_fee_and_rate_arithmetic(quotes, routes, advisory):
    shapes = quote_shapes.probe(quotes, routes)
    for note in shapes.unsupported:
        advisory(note)
    for answer in shapes.answers:  # one per pair of shapes, every run
        _follows_the_arithmetic(answer.route, answer.body, answer.response)

    @given(request=quote_requests(shapes.routes))
    def priced(request):
        route, body = request
        _follows_the_arithmetic(route, body, quotes.create_quote(body))

    priced()


@pytest.mark.requirement("FEES-FIXED-FOR-QUOTE-LIFE", "QUOTE-EXECUTE-DEBITS-SOURCE")
@pytest.mark.parametrize("side", ["SENDING", "RECEIVING"])
def test_executing_a_quote_moves_the_amounts_it_stated(
    funding, quotes, transaction_history, wallet, corridors, side
):
    corridor = corridors[-1]
    before = funding.account_balances(wallet.customer_id, corridor.source_id)
    quote = quotes.quote(corridor.body(side, 123_456))
    executed = quotes.execute_ok(quote["id"])
    for name in ("totalSendingAmount", "totalReceivingAmount", "exchangeRate", "feesIncluded"):
        check(
            executed.get(name) == quote.get(name),
            CLAUSE + " (rule 4)",
            "fee components and amounts are fixed for the life of a quote: the executed quote "
            f"keeps its {name}",
            expected=quote.get(name),
            observed=executed.get(name),
            requirement="FEES-FIXED-FOR-QUOTE-LIFE",
        )
    transaction = transaction_history.settled(wallet.customer_id, executed["transactionId"])
    moved = {
        "sentAmount": amount_of(transaction.get("sentAmount")),
        "receivedAmount": amount_of(transaction.get("receivedAmount")),
    }
    stated = {
        "sentAmount": quote["totalSendingAmount"],
        "receivedAmount": quote["totalReceivingAmount"],
    }
    check(
        moved == stated,
        CLAUSE + " (rule 4)",
        "executing a quote moves the amounts it stated: the transaction's sentAmount and "
        "receivedAmount are the quote's totals",
        expected=stated,
        observed=moved,
        requirement="FEES-FIXED-FOR-QUOTE-LIFE",
    )
    after = funding.account_balances(wallet.customer_id, corridor.source_id)
    if transaction.get("status") == "COMPLETED":
        check(
            before.total - after.total == quote["totalSendingAmount"],
            clauses.QUOTE_AND_TRANSACTION_STATES,
            "execution debits the source by the quote's totalSendingAmount",
            expected=quote["totalSendingAmount"],
            observed=before.total - after.total,
            requirement="QUOTE-EXECUTE-DEBITS-SOURCE",
        )


@pytest.mark.requirement("FEES-PLATFORM-CONFIG-APPLIED")
def test_the_standing_platform_fee_applies_to_cross_currency_quotes_from_usd(
    quotes, profile, client, wallet, restore_config
):
    """feeConfigs: 100 basis points and a fixed 25 (names from the profile)."""
    destinations = [c for c in wallet.destinations if c != "USD"]
    if not destinations:
        pytest.skip("the platform supports no currency but USD, so no cross-currency quote")
    names = profile.fee_config_names
    entry = {names["currency"]: "USD", names["variable_bps"]: 100, names["fixed"]: 25}
    patched = client.patch("/config", json={"feeConfigs": [entry]})
    check(
        200 <= patched.status < 300,  # §4 gives PATCH no status: any 2xx with the resource
        clauses.PLATFORM_CONFIGURATION_ENDPOINTS,
        f"PATCH /config with a USD fee configuration is accepted (names from the profile: {names})",
        expected="2xx",
        observed=(patched.status, patched.content[:300]),
        exchange=patched.exchange,
    )
    sent = 200_000
    quote = quotes.quote(wallet.corridor("USD", destinations[0]).body("SENDING", sent))
    fee = quote.get("platformFeesIncluded")
    net = sent - (quote.get("feesIncluded") or 0)
    low, high = net * 100 // 10_000 + 25 - 1, sent * 100 // 10_000 + 25 + 1
    check(
        isinstance(fee, int) and low <= fee <= high,
        clauses.PLATFORM_CONFIG,
        "the standing platform fee in feeConfigs (a variable rate in basis points and a fixed "
        "amount) applies to cross-currency transactions from USD and is reported in "
        "platformFeesIncluded",
        expected=f"1% of the sending amount (or of its net) + 25, between {low} and {high}",
        observed=fee,
    )
