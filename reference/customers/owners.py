"""Beneficial owners of business customers (§2 BeneficialOwner, §4 ``POST
/beneficial-owners``): validation, storage, rendering and the routes.

An owner carries ``kycStatus``: ``UNVERIFIED`` until its business resolves terminally,
then the outcome of its ``lastName`` suffix (see ``kyc_rules.owner_status``).
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from starlette.responses import JSONResponse, Response

from reference.customers.store import UNVERIFIED, named_in_body
from reference.kernel.clock import iso, utc_now
from reference.kernel.db import Database, from_json, to_json
from reference.kernel.errors import ApiError
from reference.kernel.field_checks import address, calendar_date, country, pick, text
from reference.kernel.routing import ApiRequest, Operation, api_route
from reference.kernel.validation import Problems, at

ROLES = ("DIRECTOR", "UBO", "CONTROL_PERSON", "SHAREHOLDER", "SIGNATORY")
CONTROL_ROLES = frozenset({"DIRECTOR", "CONTROL_PERSON"})  # §8: plus one control person
_PERSONAL_INFO = {
    "firstName": text,
    "lastName": text,
    "birthDate": calendar_date,
    "nationality": country,
    "address": address,
    "idType": text,
    "identifier": text,
    "countryOfIssuance": country,
}


@dataclass(frozen=True, slots=True)
class Owner:
    """One beneficial owner as stored."""

    id: str
    customer_id: str
    roles: list[str]
    ownership_percentage: float | None
    personal_info: dict[str, Any]
    status: str
    created_at: str

    def as_json(self) -> dict[str, Any]:
        body: dict[str, Any] = {"id": self.id, "customerId": self.customer_id, "roles": self.roles}
        if self.ownership_percentage is not None:
            share = self.ownership_percentage
            body["ownershipPercentage"] = int(share) if share.is_integer() else share
        body.update(
            personalInfo=self.personal_info, kycStatus=self.status, createdAt=self.created_at
        )
        return body


def _owner(row: Any) -> Owner:
    return Owner(
        id=row["id"],
        customer_id=row["customer_id"],
        roles=from_json(row["roles"]),
        ownership_percentage=row["ownership_percentage"],
        personal_info=from_json(row["personal_info"]),
        status=row["status"],
        created_at=row["created_at"],
    )


def owners_of(db: Database, customer_id: str) -> list[Owner]:
    """The owners declared for a business, oldest first."""
    rows = db.fetchall(
        "SELECT * FROM beneficial_owners WHERE customer_id = ? ORDER BY seq", (customer_id,)
    )
    return [_owner(row) for row in rows]


def set_status(db: Database, owner_id: str, status: str) -> None:
    """Record an owner's outcome."""
    db.execute("UPDATE beneficial_owners SET status = ? WHERE id = ?", (status, owner_id))


def _validate(db: Database, platform_id: str, body: Mapping[str, Any]) -> dict[str, Any]:
    problems = Problems()
    customer_id = body.get("customerId")
    customer = named_in_body(problems, db, platform_id, customer_id, "customerId")
    if customer is not None and customer.is_individual:
        problems.conflict("customerId", "BUSINESS_ONLY", "must be a BUSINESS customer")
    roles: list[str] = []
    if body.get("roles") is not None:
        items = problems.array("roles", body["roles"]) or []
        roles = [r for i, r in enumerate(items) if problems.one_of(at("roles", i), r, ROLES)]
    share = body.get("ownershipPercentage")
    if share is not None:
        share = _percentage(problems, share)
        if share is not None and isinstance(customer_id, str):
            row = db.fetchone(
                """SELECT COALESCE(SUM(ownership_percentage), 0) AS total
                   FROM beneficial_owners WHERE customer_id = ?""",
                (customer_id,),
            )
            if row is not None and row["total"] + share > 100:
                problems.conflict(
                    "ownershipPercentage",
                    "OWNERSHIP_TOTAL",
                    f"the owners of a business hold at most 100% ({row['total']:g}% declared)",
                )
    info = problems.required(body, "personalInfo", "")
    personal: dict[str, Any] = {}
    if info is not None and problems.object("personalInfo", info) is not None:
        personal = pick(problems, info, "personalInfo", _PERSONAL_INFO)
    problems.raise_if_any()
    return {"customer_id": customer_id, "roles": roles, "share": share, "personal": personal}


def _percentage(problems: Problems, value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        problems.add("ownershipPercentage", "TYPE_NUMBER", "must be a number")
        return None
    if value < 0:
        problems.add("ownershipPercentage", "MINIMUM", "must be at least 0")
        return None
    if value > 100:
        problems.add("ownershipPercentage", "MAXIMUM", "must be at most 100")
        return None
    return float(value)


def create_owner(request: ApiRequest) -> Response:
    """``POST /beneficial-owners`` → 201 BeneficialOwner."""
    db = request.services.db
    with db.transaction():
        valid = _validate(db, request.platform.id, request.body)
        owner = Owner(
            id=f"BeneficialOwner:{uuid.uuid4()}",
            customer_id=valid["customer_id"],
            roles=valid["roles"],
            ownership_percentage=valid["share"],
            personal_info=valid["personal"],
            status=UNVERIFIED,
            created_at=iso(utc_now()),
        )
        db.execute(
            """INSERT INTO beneficial_owners (id, platform_id, customer_id, roles,
               ownership_percentage, personal_info, status, created_at)
               VALUES (?, ?, ?, ?, ?, ?, ?, ?)""",
            (
                owner.id,
                request.platform.id,
                owner.customer_id,
                to_json(owner.roles),
                owner.ownership_percentage,
                to_json(owner.personal_info),
                owner.status,
                owner.created_at,
            ),
        )
    return JSONResponse(owner.as_json(), status_code=201)


def find_owner(db: Database, platform_id: str, owner_id: str) -> Owner | None:
    """The platform's owner with this id, or None."""
    row = db.fetchone(
        "SELECT * FROM beneficial_owners WHERE id = ? AND platform_id = ?", (owner_id, platform_id)
    )
    return None if row is None else _owner(row)


def get_owner(request: ApiRequest) -> Response:
    """``GET /beneficial-owners/{ownerId}`` (the reference's addition, to read outcomes)."""
    owner_id = request.path_params["ownerId"]
    owner = find_owner(request.services.db, request.platform.id, owner_id)
    if owner is None:
        raise ApiError(404, "NOT_FOUND", f"no beneficial owner {owner_id}")
    return JSONResponse(owner.as_json())


ROUTES = [
    api_route("/beneficial-owners", Operation("POST", create_owner, body=True)),
    api_route("/beneficial-owners/{ownerId}", Operation("GET", get_owner)),
]
