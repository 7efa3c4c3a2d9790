"""§8 Limits and §4 Quotes and transactions — remittanceInformation holds at most 80
characters, a quote lives at most 15 minutes, and a per-transaction platform fee override
applies to USD source currency only."""

from __future__ import annotations

import pytest

from conformance.contract import clauses
from conformance.contract.failures import check
from conformance.exchange.assertions import assert_invalid_input, assert_status, required_json
from conformance.ground.timestamps import parse_timestamp
from conformance.payments.quotes import LONGEST_QUOTE_LIFETIME_S

pytestmark = [pytest.mark.resource("Quote"), pytest.mark.writes]

CLAUSE = clauses.LIMITS
QUOTES_CLAUSE = clauses.QUOTES_ENDPOINTS


@pytest.fixture(scope="module")
def wallet(money_customers, funding):
    return funding.wallet(money_customers.currencies())


@pytest.mark.requirement("LIMIT-REMITTANCE-INFORMATION-80")
def test_remittance_information_of_80_characters_is_accepted(quotes, wallet):
    response = quotes.create_quote(wallet.corridor().body(remittanceInformation="R" * 80))
    assert_status(response, 201, CLAUSE, "remittanceInformation of 80 characters is accepted")


@pytest.mark.requirement("LIMIT-REMITTANCE-INFORMATION-80")
@pytest.mark.parametrize("length", [81, 140])
def test_remittance_information_over_80_characters_is_refused(quotes, wallet, length):
    response = quotes.create_quote(wallet.corridor().body(remittanceInformation="R" * length))
    assert_invalid_input(response, [("remittanceInformation",)], CLAUSE)


@pytest.mark.requirement("LIMIT-QUOTE-LIFETIME", "QUOTE-TIMESTAMPS")
@pytest.mark.parametrize("side", ["SENDING", "RECEIVING"])
def test_a_quote_expires_within_15_minutes_of_its_creation(quotes, wallet, side):
    quote = quotes.quote(wallet.corridor().body(side))
    created, expires = (
        parse_timestamp(quote.get("createdAt")),
        parse_timestamp(quote.get("expiresAt")),
    )
    lifetime = (expires - created).total_seconds() if created and expires else None
    check(
        lifetime is not None and 0 < lifetime <= LONGEST_QUOTE_LIFETIME_S,
        CLAUSE,
        "a quote lives up to 15 minutes: expiresAt is after createdAt and at most 15 minutes later",
        expected="0 < expiresAt - createdAt <= 900 s",
        observed={"createdAt": quote.get("createdAt"), "expiresAt": quote.get("expiresAt")},
    )


def override(profile, bps, fixed):
    """A platformFeeOverride (inner shape not shown; names from the profile)."""
    return {
        profile.field_name("fee_override_variable_bps"): bps,
        profile.field_name("fee_override_fixed"): fixed,
    }


@pytest.mark.requirement("QUOTE-PLATFORM-FEE-OVERRIDE-USD")
def test_a_platform_fee_override_is_accepted_for_a_usd_source(quotes, profile, wallet):
    targets = [c for c in wallet.destinations if c != "USD"] or ["USD"]
    body = wallet.corridor("USD", targets[0]).body(
        "SENDING", 100_000, platformFeeOverride=override(profile, 50, 10)
    )
    response = quotes.create_quote(body)
    quote = required_json(
        response,
        QUOTES_CLAUSE,
        "platformFeeOverride is accepted on a quote from a USD source (inner names from the "
        "profile: fee_override_variable_bps, fee_override_fixed)",
        status=201,
    )
    fee = quote.get("platformFeesIncluded")
    check(
        isinstance(fee, int) and 0 < fee <= 100_000 * 50 // 10_000 + 10 + 1,
        QUOTES_CLAUSE,
        "the per-transaction platform fee is reported in platformFeesIncluded",
        expected="0.5% of the sending amount (or of its net) + 10",
        observed=fee,
        exchange=response.exchange,
    )


@pytest.mark.requirement("QUOTE-PLATFORM-FEE-OVERRIDE-USD")
def test_a_platform_fee_override_on_another_source_currency_is_refused(quotes, profile, wallet):
    others = [c for c in wallet.sources if c != "USD"]
    if not others:
        pytest.skip("the platform supports no source currency but USD")
    body = wallet.corridor(others[0], "USD").body(
        "SENDING", 100_000, platformFeeOverride=override(profile, 50, 10)
    )
    response = quotes.create_quote(body)
    assert_status(
        response,
        400,
        CLAUSE,
        f"a platformFeeOverride on a {others[0]} source is refused: USD source currency only",
    )
