"""§7 Errors and §3 Quote and transaction — a quote whose rate is refused at execution
fails with QUOTE_RATE_UNAVAILABLE.

No trigger is shown: the adapter has the target refuse a quote's rate
(``pytest_conformance_refuse_quote_rate``). The interface names the code, not the status,
so any error status passes.
"""

from __future__ import annotations

import pytest

from conformance.contract import clauses
from conformance.contract.failures import check
from conformance.contract.markers import needs_adapter_hook
from conformance.payments.money_limits import REFUSE_RATE_HOOK, error_code, is_refusal, refuse_rate

pytestmark = [pytest.mark.resource("Quote"), pytest.mark.writes]

CLAUSE = clauses.ERRORS
CODE = "QUOTE_RATE_UNAVAILABLE"


@pytest.fixture(scope="module")
def wallet(money_customers, funding):
    return funding.wallet(money_customers.currencies())


@needs_adapter_hook(REFUSE_RATE_HOOK)
@pytest.mark.requirement("QUOTE-RATE-UNAVAILABLE-ERROR")
def test_executing_a_quote_whose_rate_is_refused_fails_with_quote_rate_unavailable(
    quotes, wallet, adapter
):
    corridor = wallet.corridors()[-1]  # cross-currency where the platform supports two
    quote = quotes.quote(corridor.body("SENDING", 20_000))
    refuse_rate(adapter, quote["id"])
    response = quotes.execute(quote["id"])
    check(
        is_refusal(response, None, CODE),
        CLAUSE,
        f"executing a quote whose rate is refused at execution fails with {CODE} "
        f"({corridor}; the refusal set up by the adapter hook {REFUSE_RATE_HOOK.__name__})",
        expected=f"an error status with code {CODE}",
        observed=(response.status, error_code(response) or response.content[:200]),
        exchange=response.exchange,
    )
