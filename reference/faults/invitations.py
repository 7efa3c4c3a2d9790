"""Fault modes of the invitations area (reference/invitations/)."""

from __future__ import annotations

from typing import Any

from reference.faults.registry import fault
from reference.invitations import claims


@fault(
    "invitation-claim-no-event",
    at=claims.CLAIMED_EVENT_DATA,
    clause="§6 Events: invitation claimed",
    part="webhooks",
    caught_by=("test_claiming_an_invitation_notifies_the_platform",),
)
def no_claimed_event(data: dict[str, Any] | None, *, invitation_id: str) -> None:
    """claiming an invitation fires no event"""
    return None


@fault(
    "invitation-claim-no-uma",
    at=claims.INVITEE_UMA,
    clause="§3 Invitation: the invitee UMA address is attached on claim",
    part="transitions",
    caught_by=("test_a_claimed_invitation_is_claimed_with_the_invitees_uma_address",),
)
def no_invitee_uma(uma: str | None, *, customer_id: str) -> None:
    """a claimed invitation carries no invitee UMA address"""
    return None
