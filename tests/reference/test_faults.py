"""Each fault mode breaks exactly the behaviour it names (the self-tests rely on it).

The check of each fault lives in the ``<module>_fault_checks`` module named after the fault's
module in ``reference/faults/``; this module
gathers them and runs each against a sandbox started with its fault.
"""

from __future__ import annotations

import pytest

from reference.faults import FAULTS

from .accounts_fault_checks import ACCOUNTS_CHECKS
from .agents_fault_checks import AGENTS_CHECKS
from .cards_fault_checks import CARDS_CHECKS
from .configuration_fault_checks import CONFIGURATION_CHECKS
from .customers_fault_checks import CUSTOMERS_CHECKS
from .invitations_fault_checks import INVITATIONS_CHECKS
from .kernel_fault_checks import KERNEL_CHECKS
from .payment_records_fault_checks import PAYMENT_RECORDS_CHECKS
from .payments_fault_checks import PAYMENTS_CHECKS
from .reference_helpers import Check, WebhookReceiver, start_sandbox
from .sca_fault_checks import SCA_CHECKS, SCA_FLAGS
from .wallet_fault_checks import WALLET_CHECKS
from .webhooks_fault_checks import WEBHOOKS_CHECKS

# one checks module per fault module of reference/faults/, named after it
CHECKS: dict[str, Check] = {}
CHECKS.update(ACCOUNTS_CHECKS)
CHECKS.update(AGENTS_CHECKS)
CHECKS.update(CARDS_CHECKS)
CHECKS.update(CONFIGURATION_CHECKS)
CHECKS.update(CUSTOMERS_CHECKS)
CHECKS.update(INVITATIONS_CHECKS)
CHECKS.update(KERNEL_CHECKS)
CHECKS.update(PAYMENT_RECORDS_CHECKS)
CHECKS.update(PAYMENTS_CHECKS)
CHECKS.update(SCA_CHECKS)
CHECKS.update(WALLET_CHECKS)
CHECKS.update(WEBHOOKS_CHECKS)


# Start-up flags a check needs besides its fault.
FLAGS: dict[str, tuple[str, ...]] = {
    "regulated-suffix-ignored": ("--regulated",),
    "execute-after-expiry": ("--quote-lifetime", "1"),
}
FLAGS.update(SCA_FLAGS)


def test_every_fault_in_the_catalogue_has_a_check() -> None:
    assert set(CHECKS) == set(FAULTS)


# thorough tier (tests/selftest_tier.py): CI proves every fault mode by the suite catching it
# (tests/conformance_runs/test_fault_modes.py); this is the reference's own, second proof
@pytest.mark.thorough
@pytest.mark.parametrize("fault", sorted(FAULTS))
def test_fault_breaks_its_behaviour(receiver: WebhookReceiver, fault: str) -> None:
    # one sandbox per test, so xdist spreads the start-ups instead of piling them up
    sandbox = start_sandbox("--fault", fault, *FLAGS.get(fault, ()), warm=True)
    try:
        assert sandbox.banner["faults"] == [fault]
        CHECKS[fault](sandbox, receiver)
    finally:
        sandbox.stop()
