"""§4 Quotes and transactions — ``POST /quotes/{quoteId}/authorize`` returns the Quote;
§4 Cards, stablecoins, agents, auth, sandbox — ``POST /sca/login/complete`` returns
``sessionExpiresAt``. Both bodies are not shown and come from the adapter hooks."""

from __future__ import annotations

import pytest

from conformance.contract import clauses
from conformance.contract.failures import check
from conformance.contract.markers import needs_adapter_hook
from conformance.ground.timestamps import parse_timestamp
from conformance.sca.flows import AUTHORIZE_CLAUSE, LOGIN_HOOK, PROOF_HOOK, challenge_of

pytestmark = [pytest.mark.resource("Quote"), pytest.mark.writes]

LOGIN_CLAUSE = clauses.CARDS_AGENTS_SANDBOX_ENDPOINTS + " — POST /sca/login/complete"


@pytest.fixture(scope="module")
def wallet(sca):
    return sca.wallet(("EUR",))


@needs_adapter_hook(LOGIN_HOOK)
@pytest.mark.requirement("SCA-LOGIN-COMPLETE")
def test_completing_an_sca_login_returns_the_session_expiry(sca, wallet):
    session = sca.login_ok(wallet.customer_id)
    check(
        parse_timestamp(session.get("sessionExpiresAt")) is not None,
        LOGIN_CLAUSE,
        "POST /sca/login/complete returns sessionExpiresAt, a timestamp",
        observed=session,
    )


@needs_adapter_hook(LOGIN_HOOK, PROOF_HOOK)
@pytest.mark.requirement("QUOTE-AUTHORIZE-RETURNS-QUOTE")
def test_authorizing_with_a_valid_proof_returns_the_quote(sca, wallet):
    sca.login_ok(wallet.customer_id)
    quote = sca.challenged(wallet)
    proof = sca.proof(wallet.customer_id, challenge_of(quote), valid=True)
    response = sca.authorize(quote["id"], proof)
    check(
        response.status == 200 and response.is_json and response.json.get("id") == quote["id"],
        AUTHORIZE_CLAUSE,
        "POST /quotes/{quoteId}/authorize with the proof its factor needs returns the Quote",
        expected=f"200 with the Quote {quote['id']}",
        observed=(response.status, response.content[:300]),
        exchange=response.exchange,
    )
