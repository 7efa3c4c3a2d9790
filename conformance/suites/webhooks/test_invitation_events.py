"""§6 Events — invitation claimed: claiming an invitation notifies the platform. Its type
string and payload are not shown, so the event is any signed envelope delivered after the
claim that mentions the invitation's id. Creating and claiming go through the adapter."""

from __future__ import annotations

import time

import pytest

from conformance.contract import clauses
from conformance.contract.markers import needs_adapter_hook
from conformance.invitations.flows import CLAIM_HOOK, CREATE_HOOK
from conformance.webhooks.event_checks import check_event_envelopes, fail_wait, mentions_anywhere
from conformance.webhooks.sink import Awaited, SinkTimeout

pytestmark = [
    pytest.mark.resource("Invitation"),
    pytest.mark.writes,
    needs_adapter_hook(CREATE_HOOK),
    needs_adapter_hook(CLAIM_HOOK),
]

CLAUSE = clauses.EVENTS + " — invitation claimed"
# its type is not shown: only a late arrival about an invitation an earlier wait awaited tells
# that the target sends it
AWAITED = Awaited("an event about a claimed invitation", "WEBHOOK-INVITATION-CLAIMED")


@pytest.mark.requirement("WEBHOOK-INVITATION-CLAIMED", "WEBHOOK-SIGNATURE")
def test_claiming_an_invitation_notifies_the_platform(
    invitations, money_customers, resource_events
):
    inviter = money_customers.approved_customer(["USD"])
    invitee = money_customers.approved_customer(["USD"])
    invitation = invitations.create(inviter["id"])
    mark = resource_events.mark()
    invitations.claim(invitation, invitee["id"])
    invitation_id = invitation["id"]
    started = time.monotonic()
    try:
        events = resource_events.sink.wait_for_all(
            lambda d: mentions_anywhere(d, invitation_id),
            1,
            timeout=resource_events.timeout,
            description=f"an event about {invitation_id}",
            after=mark,
            awaited=AWAITED,
        )
    except SinkTimeout as timeout:
        fail_wait(
            timeout,
            CLAUSE,
            "claiming an invitation fires the invitation-claimed event to the platform",
            observed=f"no event mentioning {invitation_id} within "
            f"{time.monotonic() - started:.1f} s of the claim",
            hint="the event's type and payload are not shown; the suite looks for any event "
            "whose data mentions the invitation's id",
            requirement="WEBHOOK-INVITATION-CLAIMED",
        )
    check_event_envelopes(
        resource_events.registry, events, "the claimed event is the signed envelope of §6"
    )
