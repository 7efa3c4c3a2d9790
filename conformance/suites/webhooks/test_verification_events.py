"""§6 Events — CUSTOMER.KYC_* and CUSTOMER.KYB_* events, as the webhook sink receives them.

One individual and one business are walked to a decision (on the path the platform mode
gives them); each test then reads their events for one property. The order of the events
along the walk is a state-machine rule: ``transitions/test_verification_event_order.py``.
"""

from __future__ import annotations

import pytest

from conformance.customers.verification_checks import decided_customers, events_of_walks

pytestmark = [pytest.mark.resource("Webhook"), pytest.mark.writes]


@pytest.fixture(scope="module")
def decided(onboarding):
    """An individual and a business walked to a decision (see ``decided_customers``)."""
    return decided_customers(onboarding)


@pytest.mark.requirement(
    "WEBHOOK-CUSTOMER-EVENT-FAMILY", "KYC-SUBMISSION-PENDING", "KYB-SUBMISSION-PENDING"
)
def test_status_changes_emit_events_of_the_customers_family(customer_events, decided):
    for customer, events in events_of_walks(customer_events, decided):
        customer_events.check_family(customer, events)


@pytest.mark.requirement("WEBHOOK-ENVELOPE")
def test_customer_events_are_envelopes(customer_events, decided):
    for _, events in events_of_walks(customer_events, decided):
        customer_events.check_envelopes(events)
