"""§3 Contact verification — a channel goes from PENDING to VERIFIED after send then confirm.

The one-time code's delivery is not shown: the adapter hook
``pytest_conformance_contact_verification_code`` reads the code last sent. Generating a KYC link
before every present channel is ``VERIFIED`` answers 409.
"""

from __future__ import annotations

import pytest

from conformance.contract import clauses
from conformance.contract.failures import check
from conformance.contract.markers import needs_adapter_hook
from conformance.customers.onboarding import contact_channels, wrong_code
from conformance.exchange.assertions import assert_status
from conformance.ground import hookspecs

pytestmark = [
    pytest.mark.resource("Customer"),
    pytest.mark.writes,
    needs_adapter_hook(hookspecs.pytest_conformance_contact_verification_code),
]

CLAUSE = clauses.CONTACT_VERIFICATION_STATES
SEND_CLAUSE = clauses.CUSTOMERS_ENDPOINTS + " — POST /customers/{customerId}/verify-<channel>"


def send(onboarding, customer, channel):
    __tracebackhide__ = True
    response = onboarding.send_code(customer["id"], channel)
    check(
        200 <= response.status < 300,
        SEND_CLAUSE,
        f"POST .../verify-{channel} sends a one-time code for a channel the provider requires",
        expected="2xx",
        observed=(response.status, response.content[:300]),
        exchange=response.exchange,
        requirement="CONTACT-VERIFY-SEND",
    )


def channel_state(onboarding, customer, channel):
    return contact_channels(onboarding.get(customer["id"])).get(channel)


@pytest.mark.requirement("CONTACT-VERIFICATION-CONFIRM", "CONTACT-VERIFY-SEND")
@pytest.mark.parametrize("channel", ["email", "phone"])
def test_confirming_the_code_sent_verifies_the_channel(onboarding, adapter, channel):
    customer = onboarding.customer_needing(channel)
    send(onboarding, customer, channel)
    send(onboarding, customer, channel)  # re-POST resends; the latest code counts
    unconfirmed = channel_state(onboarding, customer, channel)
    check(
        unconfirmed != "VERIFIED",
        CLAUSE,
        f"PENDING becomes VERIFIED for {channel} after send then confirm with the right code; "
        "sending the code again (§4: a re-POST resends) confirms nothing",
        expected="not VERIFIED before any confirm",
        observed=f"{channel} {unconfirmed} after two sends and no confirm",
        requirement="CONTACT-VERIFICATION-CONFIRM",
    )
    code = adapter.call(
        hookspecs.pytest_conformance_contact_verification_code,
        customer_id=customer["id"],
        channel=channel,
    )
    response = onboarding.confirm(customer["id"], channel, code)
    check(
        200 <= response.status < 300,
        CLAUSE,
        f"confirming {channel} with the code sent is accepted",
        expected="2xx",
        observed=(response.status, response.content[:300]),
        exchange=response.exchange,
        requirement="CONTACT-VERIFICATION-CONFIRM",
    )
    check(
        channel_state(onboarding, customer, channel) == "VERIFIED",
        CLAUSE,
        f"PENDING becomes VERIFIED for {channel} after send then confirm with the right code",
        expected="VERIFIED",
        observed=channel_state(onboarding, customer, channel),
        requirement="CONTACT-VERIFICATION-CONFIRM",
    )


@pytest.mark.requirement("CONTACT-VERIFICATION-WRONG-CODE")
@pytest.mark.parametrize("channel", ["email", "phone"])
def test_a_wrong_code_leaves_the_channel_pending(onboarding, adapter, advisory, channel):
    customer = onboarding.customer_needing(channel)
    send(onboarding, customer, channel)
    code = adapter.call(
        hookspecs.pytest_conformance_contact_verification_code,
        customer_id=customer["id"],
        channel=channel,
    )
    response = onboarding.confirm(customer["id"], channel, wrong_code(str(code)))
    if 200 <= response.status < 300:
        advisory(f"confirming {channel} with a wrong code answered {response.status}")
    check(
        channel_state(onboarding, customer, channel) == "PENDING",
        CLAUSE,
        f"only the right code verifies {channel}: after a wrong code it stays PENDING",
        expected="PENDING",
        observed=channel_state(onboarding, customer, channel),
        exchange=response.exchange,
    )


@pytest.mark.requirement("KYC-LINK-CONTACT-UNVERIFIED-409", "CONTACT-VERIFICATION-CONFIRM")
def test_a_kyc_link_is_issued_once_every_present_channel_is_verified(onboarding, adapter):
    customer = onboarding.customer_needing()
    states = contact_channels(customer)
    channels = sorted(c for c, state in states.items() if state == "PENDING")
    for channel in channels:
        assert_status(
            onboarding.kyc_link(customer["id"]),
            409,
            CLAUSE,
            f"a verification link before every present channel is VERIFIED answers 409 "
            f"(still pending: {channel})",
        )
        send(onboarding, customer, channel)
        code = adapter.call(
            hookspecs.pytest_conformance_contact_verification_code,
            customer_id=customer["id"],
            channel=channel,
        )
        onboarding.confirm(customer["id"], channel, code)
    response = onboarding.kyc_link(customer["id"])
    check(
        response.status in (200, 201),
        clauses.CUSTOMERS_ENDPOINTS + " — POST /customers/{customerId}/kyc-link",
        "once every present channel is VERIFIED a verification link is issued",
        expected="200 or 201",
        observed=(response.status, response.content[:300]),
        exchange=response.exchange,
    )
