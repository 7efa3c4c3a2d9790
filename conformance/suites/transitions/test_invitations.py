"""§3 Invitation: ``PENDING`` becomes ``CLAIMED`` when a customer claims it, and the invitee
UMA address is then attached. Creating and claiming go through the adapter (not shown);
its answers are the invitation records judged here."""

from __future__ import annotations

import pytest

from conformance.contract.failures import check
from conformance.contract.markers import needs_adapter_hook
from conformance.invitations.flows import CLAIM_HOOK, CREATE_HOOK, INVITATION_CLAUSE, uma_addresses

pytestmark = [
    pytest.mark.resource("Invitation"),
    pytest.mark.writes,
    needs_adapter_hook(CREATE_HOOK),
    needs_adapter_hook(CLAIM_HOOK),
]


@pytest.mark.requirement("INVITATION-CLAIMED")
def test_a_claimed_invitation_is_claimed_with_the_invitees_uma_address(
    invitations, money_customers
):
    inviter = money_customers.approved_customer(["USD"])
    invitee = money_customers.approved_customer(["USD"])
    invitation = invitations.create(inviter["id"])
    check(
        invitation.get("status") == "PENDING",
        INVITATION_CLAUSE,
        "an invitation is PENDING until a customer claims it",
        observed=invitation.get("status"),
    )
    check(
        not uma_addresses(invitation),
        INVITATION_CLAUSE,
        "the invitee UMA address is associated on claim, not before",
        observed=uma_addresses(invitation),
    )
    claimed = invitations.claim(invitation, invitee["id"])
    check(
        claimed.get("id") == invitation["id"] and claimed.get("status") == "CLAIMED",
        INVITATION_CLAUSE,
        "PENDING becomes CLAIMED when a customer claims the invitation",
        expected={"id": invitation["id"], "status": "CLAIMED"},
        observed={"id": claimed.get("id"), "status": claimed.get("status")},
    )
    check(
        bool(uma_addresses(claimed)),
        INVITATION_CLAUSE,
        "the invitee UMA address ($user@domain) is attached when the invitation is claimed",
        observed=claimed,
    )
