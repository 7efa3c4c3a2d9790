"""§6 Events — CUSTOMER.KYC_* and CUSTOMER.KYB_* events, as the webhook sink receives them.

One individual and one business are walked to a decision (on the path the platform mode
gives them); each test then reads their events for one property.
"""

from __future__ import annotations

import pytest

from conformance.customers.verification_checks import a_final_customer, events_for
from conformance.customers.verification_outcomes import BUSINESS, COMPLETE, INDIVIDUAL, expected

pytestmark = [pytest.mark.resource("Webhook"), pytest.mark.writes]


@pytest.fixture(scope="module")
def decided(onboarding, profile):
    """(customer, event statuses its walk must emit, transition) for a walked customer each."""
    walked = []
    for kind, suffix in ((INDIVIDUAL, "002"), (BUSINESS, "004")):
        customer = a_final_customer(onboarding, kind, suffix)
        outcome = expected(kind, profile, COMPLETE, suffix)
        status = customer["kybStatus" if kind == BUSINESS else "kycStatus"]
        statuses = () if outcome.refused else events_for(outcome, status)
        walked.append((customer, statuses, f"a complete submission of a {kind.lower()} ({status})"))
    return walked


def events_of(customer_events, decided):
    for customer, statuses, why in decided:
        yield customer, customer_events.wait(customer, statuses, why=why)


@pytest.mark.requirement(
    "WEBHOOK-CUSTOMER-EVENT-FAMILY", "KYC-SUBMISSION-PENDING", "KYB-SUBMISSION-PENDING"
)
def test_status_changes_emit_events_of_the_customers_family(customer_events, decided):
    for customer, events in events_of(customer_events, decided):
        customer_events.check_family(customer, events)


@pytest.mark.requirement("WEBHOOK-ENVELOPE")
def test_customer_events_are_envelopes(customer_events, decided):
    for _, events in events_of(customer_events, decided):
        customer_events.check_envelopes(events)


@pytest.mark.requirement("KYC-REJECTED", "KYB-APPROVED")
def test_customer_events_follow_the_state_machine(customer_events, decided):
    for customer, events in events_of(customer_events, decided):
        customer_events.check_order(customer, events)
