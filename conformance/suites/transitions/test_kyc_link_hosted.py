"""§3 Customer verification — completing the hosted flow behind a KYC link.

Completing the hosted verification flow with complete data takes an ``UNVERIFIED`` customer
to ``PENDING`` like an accepted ``POST /verifications``. With Skip verification paperwork
on, the flow asks a business with a final registration suffix for no documents or owners;
in every mode such a business resolves once the flow is done. The flow itself is driven by
the adapter hook ``pytest_conformance_complete_hosted_kyc``.
"""

from __future__ import annotations

import pytest

from conformance.contract import clauses
from conformance.contract.failures import check
from conformance.contract.markers import needs_adapter_hook
from conformance.customers.onboarding import status_field
from conformance.customers.verification_checks import assert_customer_status, events_for
from conformance.customers.verification_outcomes import BUSINESS, COMPLETE, INDIVIDUAL, expected
from conformance.exchange.assertions import required_json
from conformance.ground import hookspecs

pytestmark = [
    pytest.mark.resource("Customer"),
    pytest.mark.writes,
    needs_adapter_hook(hookspecs.pytest_conformance_complete_hosted_kyc),
]

CLAUSE = clauses.CUSTOMER_VERIFICATION_STATES


def complete_hosted_flow(onboarding, adapter, customer):
    response = onboarding.kyc_link(customer["id"])
    link = required_json(
        response,
        clauses.CUSTOMERS_ENDPOINTS + " — POST /customers/{customerId}/kyc-link",
        "a customer without pending contact channels is issued a link",
        status=(200, 201),
    )
    done = adapter.call(
        hookspecs.pytest_conformance_complete_hosted_kyc,
        customer_id=customer["id"],
        kyc_url=link["kycUrl"],
    )
    check(done is True, CLAUSE, "the hosted flow behind a fresh link completes", observed=done)


@pytest.mark.requirement("KYC-HOSTED-FLOW-PENDING")
@pytest.mark.parametrize("kind", [INDIVIDUAL, BUSINESS])
def test_completing_the_hosted_flow_submits_the_customer(
    onboarding, profile, adapter, customer_events, advisory, kind
):
    customer = onboarding.business("001") if kind == BUSINESS else onboarding.individual("001")
    field = status_field(customer)
    before = customer.get(field)
    complete_hosted_flow(onboarding, adapter, customer)
    outcome = expected(kind, profile, COMPLETE, "001")
    status = onboarding.settled_status(customer["id"], outcome)
    assert_customer_status(
        status, outcome, f"{field} after the customer completes the hosted flow", advisory
    )
    customer_events.expect(
        customer,
        ("PENDING",) if before == "UNVERIFIED" else (),
        why="completing the hosted flow with complete data (UNVERIFIED to PENDING)",
    )


@pytest.mark.requirement("SANDBOX-KYB-HOSTED-FLOW-NO-PAPERWORK", "KYC-HOSTED-FLOW-PENDING")
@pytest.mark.parametrize("suffix", ["002", "004"])
def test_the_hosted_flow_resolves_a_business_with_a_final_suffix(
    onboarding, profile, adapter, customer_events, advisory, suffix
):
    customer = onboarding.business(suffix)  # no documents, no owners
    complete_hosted_flow(onboarding, adapter, customer)
    outcome = expected(BUSINESS, profile, COMPLETE, suffix)
    status = onboarding.settled_status(customer["id"], outcome)
    assert_customer_status(
        status,
        outcome,
        "kybStatus after the hosted flow of a business with a final suffix",
        advisory,
    )
    customer_events.expect(
        customer,
        events_for(outcome, status),
        why=f"the hosted flow resolving a business ({status})",
    )
