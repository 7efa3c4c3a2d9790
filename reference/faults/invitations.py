"""Fault modes of the invitations area (reference/invitations/)."""

from __future__ import annotations

from reference.faults.legacy import legacy

legacy(
    "invitation-claim-no-event",
    breaks="claiming an invitation fires no event",
    clause="§6 Events: invitation claimed",
    part="webhooks",
    caught_by=("test_claiming_an_invitation_notifies_the_platform",),
)
legacy(
    "invitation-claim-no-uma",
    breaks="a claimed invitation carries no invitee UMA address",
    clause="§3 Invitation: the invitee UMA address is attached on claim",
    part="transitions",
    caught_by=("test_a_claimed_invitation_is_claimed_with_the_invitees_uma_address",),
)
