"""§7 Errors — 409 from contact verification and from a KYC link requested too early.

Contact verification endpoints answer 409 for a channel the customer's provider does not
require (§4, §5); a verification link requested before every present channel is
``VERIFIED`` answers 409 (§3 Contact verification).
"""

from __future__ import annotations

import pytest

from conformance.contract import clauses
from conformance.exchange.assertions import assert_status

pytestmark = [pytest.mark.resource("Customer"), pytest.mark.writes]

CLAUSE = clauses.ERRORS + " — 409"


@pytest.mark.requirement(
    "CONTACT-VERIFY-NOT-REQUIRED-409", "CONTACT-VERIFICATION-ONLY-REQUIRED-CHANNELS"
)
@pytest.mark.parametrize("channel", ["email", "phone"])
def test_a_channel_the_provider_does_not_require_answers_409(onboarding, channel):
    customer = onboarding.customer_not_needing(channel)
    assert_status(
        onboarding.send_code(customer["id"], channel),
        409,
        CLAUSE,
        f"POST .../verify-{channel} answers 409 for a channel the provider does not require",
        requirement="CONTACT-VERIFY-NOT-REQUIRED-409",
    )
    assert_status(
        onboarding.confirm(customer["id"], channel, "123456"),
        409,
        CLAUSE,
        f"POST .../verify-{channel}/confirm answers 409 for a channel the provider does not "
        "require (contact verification endpoints return 409 for such customers, §5)",
        requirement="CONTACT-VERIFY-NOT-REQUIRED-409",
    )


@pytest.mark.requirement("KYC-LINK-CONTACT-UNVERIFIED-409")
def test_a_kyc_link_before_the_channels_are_verified_answers_409(onboarding):
    customer = onboarding.customer_needing()
    assert_status(
        onboarding.kyc_link(customer["id"]),
        409,
        clauses.CONTACT_VERIFICATION_STATES,
        "generating a verification link before every present channel is VERIFIED returns 409",
    )
