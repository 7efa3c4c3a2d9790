"""The reference adapter's invitation hooks (SANDBOX.md, "Cards, agents and
invitations"); ``reference.adapter`` re-exports them. Invitation paths and bodies are not
shown (§4); the sandbox's ``POST /invitations`` and ``.../claim`` stand in."""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

from reference.adapter.transport import member as _member
from reference.adapter.transport import post as _post


def pytest_conformance_create_invitation(profile: Any, inviter_customer_id: str) -> dict[str, Any]:
    """A new invitation from the customer: the invitation record."""
    return _post(profile, "/invitations", {"inviterCustomerId": inviter_customer_id})


def pytest_conformance_claim_invitation(
    profile: Any, invitation: dict[str, Any], customer_id: str
) -> dict[str, Any]:
    """The customer claims the invitation: the invitation record after the claim."""
    invitation_id = _member(invitation, "id", "the invitation")
    path = f"/invitations/{quote(str(invitation_id), safe=':')}/claim"
    return _post(profile, path, {"customerId": customer_id})
