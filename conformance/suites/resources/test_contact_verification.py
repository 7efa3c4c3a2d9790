"""§2 Resources and their fields — Customer.contactVerification.

An object with optional keys ``email`` and ``phone``, each ``PENDING`` or ``VERIFIED``,
present only for the channels the provider requires; absent means no contact verification
is needed, and a verification link is then issued without one.
"""

from __future__ import annotations

import pytest

from conformance.contract import clauses
from conformance.contract.failures import check
from conformance.customers.onboarding import contact_channels

pytestmark = [pytest.mark.resource("Customer"), pytest.mark.writes]

CLAUSE = clauses.CUSTOMER


@pytest.mark.requirement("CONTACT-VERIFICATION-FIELD-SHAPE")
def test_contact_verification_holds_channels_as_pending_or_verified(onboarding):
    for label, body in onboarding.contact_candidates():
        customer = onboarding.create(body)
        shown = customer.get("contactVerification")
        if shown is None:
            continue
        # the object is not closed: other keys a target adds are not channels
        check(
            isinstance(shown, dict)
            and all(v in ("PENDING", "VERIFIED") for v in contact_channels(customer).values()),
            CLAUSE,
            "contactVerification is an object with optional keys email and phone, each "
            "PENDING or VERIFIED",
            observed=shown,
            hint=f"customer: {label}",
        )


@pytest.mark.requirement("CONTACT-VERIFICATION-ONLY-REQUIRED-CHANNELS")
def test_a_channel_listed_in_contact_verification_can_be_verified(onboarding):
    customer = onboarding.customer_needing()
    for channel in contact_channels(customer):
        response = onboarding.send_code(customer["id"], channel)
        check(
            200 <= response.status < 300,
            CLAUSE,
            "contactVerification lists only channels the provider requires, so sending a code "
            f"for the listed {channel} is accepted",
            expected="2xx",
            observed=response.status,
            exchange=response.exchange,
        )


@pytest.mark.requirement("CONTACT-VERIFICATION-ONLY-REQUIRED-CHANNELS")
def test_without_contact_verification_a_link_is_issued(onboarding):
    for _, body in onboarding.contact_candidates():
        customer = onboarding.create(body)
        if contact_channels(customer):
            continue
        response = onboarding.kyc_link(customer["id"])
        check(
            response.status in (200, 201),
            CLAUSE,
            "absent contactVerification means no contact verification is needed: a "
            "verification link is issued",
            expected="200 or 201",
            observed=(response.status, response.content[:300]),
            exchange=response.exchange,
        )
        return
    pytest.skip("every customer the suite creates needs contact verification")
