"""UMA invitations (§1 item 8, §2 Other records, §3 Invitation, §6 invitation claimed).

Shown: statuses ``PENDING`` and ``CLAIMED``; a customer's claim attaches the invitee UMA
address and fires the claimed webhook. Paths, bodies and the event's type and payload are
not shown, so the reference's choice (SANDBOX.md, "Cards, agents and invitations"):

- ``POST /invitations {inviterCustomerId?}`` → ``201`` ``{id: Invitation:<uuid>, status:
  PENDING, inviterCustomerId, claimedByCustomerId: null, inviteeUmaAddress: null, createdAt,
  updatedAt}``; ``GET /invitations/{invitationId}`` reads it.
- ``POST /invitations/{invitationId}/claim {customerId}`` → ``200`` the invitation
  ``CLAIMED``, ``claimedByCustomerId`` the customer and ``inviteeUmaAddress``
  ``$<username>@<umaDomain>`` (the username is ``u`` + the first 12 hex digits of the
  customer's uuid); the event ``INVITATION.CLAIMED`` carries the invitation. A claimed
  invitation → ``409 INVITATION_ALREADY_CLAIMED``; an unknown customer → ``400``.
"""

from __future__ import annotations

import uuid
from typing import Any

from starlette.responses import JSONResponse, Response

from reference.configuration.store import load_config
from reference.customers import store as customer_store
from reference.kernel.clock import iso, later_than, utc_now
from reference.kernel.db import Database
from reference.kernel.errors import ApiError
from reference.kernel.routing import ApiRequest, Operation, api_route
from reference.kernel.seams import seam
from reference.kernel.validation import Problems

PENDING = "PENDING"
CLAIMED = "CLAIMED"
EVENT = "INVITATION.CLAIMED"

INVITEE_UMA = seam(
    "invitations.invitee_uma",
    "the invitee UMA address a claim attaches to the invitation (context: customer_id, the"
    " claiming customer)",
)
CLAIMED_EVENT_DATA = seam(
    "invitations.claimed_event_data",
    "the data of the INVITATION.CLAIMED event a claim fires, None to fire none (context:"
    " invitation_id)",
)


def _render(row: Any) -> dict[str, Any]:
    return {
        "id": row["id"],
        "status": row["status"],
        "inviterCustomerId": row["inviter_customer_id"],
        "claimedByCustomerId": row["claimed_by"],
        "inviteeUmaAddress": row["invitee_uma"],
        "createdAt": row["created_at"],
        "updatedAt": row["updated_at"],
    }


def _load(db: Database, platform_id: str, invitation_id: str) -> Any:
    row = db.fetchone(
        "SELECT * FROM invitations WHERE id = ? AND platform_id = ?", (invitation_id, platform_id)
    )
    if row is None:
        raise ApiError(404, "NOT_FOUND", f"no invitation {invitation_id}")
    return row


def _customer(db: Database, platform_id: str, value: Any, field: str) -> str:
    """The id of the platform's customer sent as ``field``: 400 when it is absent or not a
    string, 404 when it names none."""
    problems = Problems()
    customer = customer_store.named_in_body(problems, db, platform_id, value, field)
    problems.raise_if_any()
    assert customer is not None  # else a problem was raised
    return customer.id


def create(request: ApiRequest) -> Response:
    """``POST /invitations {inviterCustomerId?}`` → ``201`` the invitation."""
    db, platform_id = request.services.db, request.platform.id
    inviter = request.body.get("inviterCustomerId")
    with db.transaction():
        if inviter is not None:
            inviter = _customer(db, platform_id, inviter, "inviterCustomerId")
        now = iso(utc_now())
        invitation_id = f"Invitation:{uuid.uuid4()}"
        db.execute(
            """INSERT INTO invitations (id, platform_id, inviter_customer_id, status,
               created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)""",
            (invitation_id, platform_id, inviter, PENDING, now, now),
        )
        row = _load(db, platform_id, invitation_id)
    return JSONResponse(_render(row), status_code=201)


def read(request: ApiRequest) -> Response:
    """``GET /invitations/{invitationId}``."""
    row = _load(request.services.db, request.platform.id, request.path_params["invitationId"])
    return JSONResponse(_render(row))


def claim(request: ApiRequest) -> Response:
    """``POST /invitations/{invitationId}/claim {customerId}`` → the invitation ``CLAIMED``."""
    services, platform_id = request.services, request.platform.id
    db, seams = services.db, services.settings.seams
    with db.transaction():
        row = _load(db, platform_id, request.path_params["invitationId"])
        customer_id = _customer(db, platform_id, request.body.get("customerId"), "customerId")
        if row["status"] != PENDING:
            raise ApiError(409, "INVITATION_ALREADY_CLAIMED", f"{row['id']} is {row['status']}")
        domain = load_config(db, platform_id).effective_uma_domain
        username = "u" + customer_id.split(":", 1)[-1].replace("-", "")[:12]
        uma: str | None = f"${username}@{domain}"
        uma = seams.apply(INVITEE_UMA, uma, customer_id=customer_id)
        db.execute(
            """UPDATE invitations SET status = ?, claimed_by = ?, invitee_uma = ?, updated_at = ?
               WHERE id = ?""",
            (CLAIMED, customer_id, uma, later_than(row["updated_at"]), row["id"]),
        )
        row = _load(db, platform_id, row["id"])
        data: dict[str, Any] | None = _render(row)
        data = seams.apply(CLAIMED_EVENT_DATA, data, invitation_id=row["id"])
        if data is not None:
            services.webhooks.enqueue_event(platform_id, EVENT, data, timestamp=row["updated_at"])
    return JSONResponse(_render(row))


ROUTES = [
    api_route("/invitations", Operation("POST", create, body=True)),
    api_route("/invitations/{invitationId}", Operation("GET", read)),
    api_route("/invitations/{invitationId}/claim", Operation("POST", claim, body=True)),
]
