"""§5 Authentication — embedded wallet, item 3 (§8 Limits): an OIDC token's ``iat`` is at
most 60 seconds before the request, with 5 seconds of clock skew allowed. The suite keeps
a margin of 25 seconds on each side of the edges for the two clocks and the round trip."""

from __future__ import annotations

import time

import pytest

from conformance.wallet.flows import item
from conformance.wallet.keys import WalletKey

pytestmark = [
    pytest.mark.resource("Authentication"),
    pytest.mark.writes,
    pytest.mark.feature("embedded-wallet"),
]

MARGIN_S = 25


@pytest.fixture(scope="module")
def oauth(embedded_wallet):
    customer = embedded_wallet.customer()
    return embedded_wallet.credential(customer, "OAUTH")


@pytest.mark.requirement("LIMIT-OIDC-IAT-WINDOW")
def test_a_token_issued_within_the_last_minute_is_accepted(embedded_wallet, oauth):
    response = embedded_wallet.oauth_verify(
        oauth, WalletKey.generate(), iat=int(time.time()) - 60 + MARGIN_S
    )
    embedded_wallet.accepted(
        response, item(3), "a token issued less than 60 seconds before the request is accepted"
    )


@pytest.mark.requirement("LIMIT-OIDC-IAT-WINDOW")
def test_a_token_issued_more_than_a_minute_ago_is_refused(embedded_wallet, oauth):
    response = embedded_wallet.oauth_verify(
        oauth, WalletKey.generate(), iat=int(time.time()) - 60 - 5 - MARGIN_S
    )
    embedded_wallet.refused(
        response,
        item(3),
        "iat is at most 60 seconds before the request (5 seconds of skew): an older token "
        "is refused",
    )


@pytest.mark.requirement("LIMIT-OIDC-IAT-WINDOW")
def test_a_token_issued_in_the_future_beyond_the_skew_is_refused(embedded_wallet, oauth):
    response = embedded_wallet.oauth_verify(
        oauth, WalletKey.generate(), iat=int(time.time()) + 5 + MARGIN_S
    )
    embedded_wallet.refused(
        response,
        item(3),
        "only 5 seconds of clock skew are allowed: a token issued further in the future is refused",
    )
