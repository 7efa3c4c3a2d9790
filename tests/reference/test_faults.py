"""Each fault mode breaks exactly the behaviour it names (the self-tests rely on it).

The check of each fault lives in the ``*_fault_checks`` module of its area; this module
gathers them and runs each against a sandbox started with its fault.
"""

from __future__ import annotations

import pytest

from reference.faults import FAULTS

from .access_fault_checks import ACCESS_CHECKS
from .accounts_fault_checks import ACCOUNTS_CHECKS
from .agents_fault_checks import AGENT_CHECKS
from .cards_fault_checks import CARD_CHECKS
from .config_fault_checks import CONFIG_CHECKS
from .customers_fault_checks import CUSTOMER_CHECKS
from .invitations_fault_checks import INVITATION_CHECKS
from .limits_fault_checks import LIMIT_CHECKS
from .money_rule_fault_checks import MONEY_RULE_CHECKS
from .pull_fault_checks import PULL_CHECKS
from .quotes_fault_checks import QUOTE_CHECKS
from .reference_helpers import Check, WebhookReceiver, start_sandbox
from .sca_fault_checks import SCA_CHECKS, SCA_FLAGS
from .states_fault_checks import STATE_CHECKS
from .transfers_fault_checks import TRANSFER_CHECKS
from .wallet_fault_checks import WALLET_CHECKS
from .webhook_fault_checks import WEBHOOK_CHECKS

CHECKS: dict[str, Check] = {}
CHECKS.update(LIMIT_CHECKS)  # limits, refused rates, holds, money resource shapes
CHECKS.update(ACCOUNTS_CHECKS)  # rule-based, ownership, payout scenarios, incoming
CHECKS.update(SCA_CHECKS)  # strong customer authentication
CHECKS.update(TRANSFER_CHECKS)  # just-in-time funding, UMA, on-chain, deprecated transfers
CHECKS.update(STATE_CHECKS)  # internal-account states: frozen, closed, failed
CHECKS.update(PULL_CHECKS)  # pull-source scenarios and fee arithmetic
CHECKS.update(WALLET_CHECKS)  # embedded-wallet authentication
CHECKS.update(MONEY_RULE_CHECKS)  # money rules broken on one path only
CHECKS.update(CARD_CHECKS)  # cards: declines, reversals, returns, events, tokenize
CHECKS.update(AGENT_CHECKS)  # agents: redeem, bearer binding and policy, approval
CHECKS.update(INVITATION_CHECKS)  # invitations: the claim's UMA address and event
CHECKS.update(CONFIG_CHECKS)  # platform configuration and request validation
CHECKS.update(ACCESS_CHECKS)  # authentication and the versioned base path
CHECKS.update(WEBHOOK_CHECKS)  # webhook signatures, the test event, lost events
CHECKS.update(CUSTOMER_CHECKS)  # KYC and KYB outcomes, consents, contacts, documents
CHECKS.update(QUOTE_CHECKS)  # quote pricing, execution, the refund of a failed payout


# Start-up flags a check needs besides its fault.
FLAGS: dict[str, tuple[str, ...]] = {
    "regulated-suffix-ignored": ("--regulated",),
    "execute-after-expiry": ("--quote-lifetime", "1"),
}
FLAGS.update(SCA_FLAGS)


def test_every_fault_in_the_catalogue_has_a_check() -> None:
    assert set(CHECKS) == set(FAULTS)


@pytest.mark.parametrize("fault", sorted(FAULTS))
def test_fault_breaks_its_behaviour(receiver: WebhookReceiver, fault: str) -> None:
    # one sandbox per test, so xdist spreads the start-ups instead of piling them up
    sandbox = start_sandbox("--fault", fault, *FLAGS.get(fault, ()), warm=True)
    try:
        assert sandbox.banner["faults"] == [fault]
        CHECKS[fault](sandbox, receiver)
    finally:
        sandbox.stop()
