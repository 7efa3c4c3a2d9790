"""§3 Customer verification — a decision's event follows its _PENDING event.

An individual and a business are walked to a decision (on the path the platform mode gives
them), and the CUSTOMER.KYC_* / CUSTOMER.KYB_* events the webhook sink received for each
are read for their order: ``PENDING``, then the decision.
"""

from __future__ import annotations

import pytest

from conformance.customers.verification_checks import decided_customers, events_of_walks

pytestmark = [pytest.mark.resource("Webhook"), pytest.mark.writes]


@pytest.fixture(scope="module")
def decided(onboarding):
    """An individual and a business walked to a decision (see ``decided_customers``)."""
    return decided_customers(onboarding)


@pytest.mark.requirement("KYC-REJECTED", "KYB-APPROVED")
def test_customer_events_follow_the_state_machine(customer_events, decided):
    for customer, events in events_of_walks(customer_events, decided):
        customer_events.check_order(customer, events)
