"""§2 InternalAccount, §3 Quote and transaction — money is conserved on an account through
any sequence of funding, quotes, executions, repeated executions and payouts that complete,
fail (and are refunded) or time out.

A Hypothesis state machine (``conformance.payments.conservation``) drives a new approved customer's
account per example at random; after every step it waits until every payment that can settle has
settled, then checks both balances against what was funded and what the transaction history
says left, and the history against what was executed. The examples are shared out among
``LANES`` tests, so workers run them side by side.
"""

from __future__ import annotations

import pytest

from conformance.contract.markers import needs_adapter_hook
from conformance.ground import hookspecs
from conformance.payments.conservation import LANES, conservation_machine, run_lane

pytestmark = [pytest.mark.resource("InternalAccount"), pytest.mark.writes]

# Steps per example: enough for a fund, a quote, an execute and a failing payout in most
# examples; the examples themselves are the Hypothesis profile's (dev 15, ci 25), shared out
# among the lanes.
STEPS = 8


@pytest.mark.runs_long
@pytest.mark.parametrize("lane", range(LANES), ids=[f"lane-{n + 1}" for n in range(LANES)])
@needs_adapter_hook(hookspecs.pytest_conformance_failing_account_number)
@pytest.mark.requirement(
    "QUOTE-EXECUTE-DEBITS-SOURCE",
    "REFUND-QUOTE-EXECUTION-FAILED-DEBIT-RETURNED",
    "INTERNAL-ACCOUNT-BALANCES",
    "SANDBOX-FUND-INTERNAL-ACCOUNT",
    "FEES-FIXED-FOR-QUOTE-LIFE",
)
def test_money_is_conserved_through_funding_payments_and_refunds(
    lane, money_customers, external_accounts, funding, quotes, transaction_history, pytestconfig
):
    machine = conservation_machine(
        money_customers, funding, external_accounts, quotes, transaction_history
    )
    run_lane(machine, lane, STEPS, pytestconfig.getoption("hypothesis_seed", None))
