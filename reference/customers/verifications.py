"""Verification submissions (§3 Customer verification, §4 ``POST /verifications`` and
``GET /verifications``), shared by the hosted flow's completion.

A submission checks the packet, applies the sandbox suffix rules (``kyc_rules``), stores
the status change with its ``CUSTOMER.*`` events in one transaction, settles beneficial
owners when a business resolves terminally, and records the Verification.
"""

from __future__ import annotations

import uuid
from dataclasses import replace
from typing import Any

from starlette.responses import JSONResponse, Response

from reference.customers import events as customer_events
from reference.customers import kyc_rules, owners
from reference.customers.packets import packet_errors
from reference.customers.store import (
    APPROVED,
    FINAL_STATUSES,
    PENDING,
    REJECTED,
    Customer,
    load_or_404,
    save,
)
from reference.kernel.clock import iso, utc_now
from reference.kernel.db import Database, from_json, to_json
from reference.kernel.errors import ApiError, FieldError, InvalidInput
from reference.kernel.routing import ApiRequest, Operation, api_route
from reference.kernel.seams import seam
from reference.kernel.services import Services

RESOLVE_ERRORS = "RESOLVE_ERRORS"
# verificationStatus of a complete submission, by the customer's resulting status.
_OUTCOME = {PENDING: "PENDING_MANUAL_REVIEW", APPROVED: APPROVED, REJECTED: REJECTED}

FINAL_RESUBMITTED = seam(
    "customers.final_resubmission_status",
    "the status a submission moves an APPROVED or REJECTED customer to: None, so it is"
    " refused with 400 (context: customer)",
)


def submit(services: Services, customer: Customer, *, hosted: bool = False) -> dict[str, Any]:
    """Submit the customer's packet; return the Verification. Call inside a transaction.

    ``hosted``: the hosted flow collected whatever was missing, so the packet is complete.
    """
    db, settings = services.db, services.settings
    if customer.is_final:
        moved: str | None = settings.seams.apply(FINAL_RESUBMITTED, None, customer=customer)
        if moved is None:
            raise ApiError(
                400,
                "CUSTOMER_STATUS_FINAL",
                f"{customer.id} is {customer.status}, which is final (§3 Customer verification)",
            )
        outcome = moved
    else:
        early = (
            None
            if customer.is_individual
            else kyc_rules.early_business_decision(customer.suffix, settings)
        )
        if early is None and not hosted:
            errors = packet_errors(db, customer, settings)
            if errors:
                return _record(db, customer, RESOLVE_ERRORS, errors)
        outcome = early or kyc_rules.decision(customer.customer_type, customer.suffix, settings)
    if outcome != customer.status:
        before = customer.status
        customer = save(db, replace(customer, status=outcome))
        customer_events.announce(services.webhooks, settings, before, customer)
    if not customer.is_individual and outcome in FINAL_STATUSES:
        for owner in owners.owners_of(db, customer.id):
            status = kyc_rules.owner_status(owner.personal_info.get("lastName"))
            owners.set_status(db, owner.id, status)
    return _record(db, customer, _OUTCOME[outcome], [])


def _record(
    db: Database, customer: Customer, status: str, errors: list[dict[str, Any]]
) -> dict[str, Any]:
    verification = {
        "id": f"Verification:{uuid.uuid4()}",
        "customerId": customer.id,
        "verificationStatus": status,
        "errors": errors,
        "createdAt": iso(utc_now()),
    }
    db.execute(
        """INSERT INTO verifications (id, platform_id, customer_id, status, errors, created_at)
           VALUES (?, ?, ?, ?, ?, ?)""",
        (
            verification["id"],
            customer.platform_id,
            customer.id,
            status,
            to_json(errors),
            verification["createdAt"],
        ),
    )
    return verification


def _customer_id(value: Any) -> str:
    if not isinstance(value, str) or not value:
        constraint = "REQUIRED" if value is None or value == "" else "TYPE_STRING"
        raise InvalidInput([FieldError("customerId", constraint, "a customer id is required")])
    return value


def create_verification(request: ApiRequest) -> Response:
    """``POST /verifications {customerId}`` → 200 Verification."""
    services = request.services
    with services.db.transaction():
        customer_id = _customer_id(request.body.get("customerId"))
        customer = load_or_404(services.db, request.platform.id, customer_id)
        verification = submit(services, customer)
    return JSONResponse(verification)


def latest_verification(request: ApiRequest) -> Response:
    """``GET /verifications?customerId=`` → the customer's latest Verification."""
    db = request.services.db
    customer = load_or_404(db, request.platform.id, _customer_id(request.query.get("customerId")))
    row = db.fetchone(
        "SELECT * FROM verifications WHERE customer_id = ? ORDER BY seq DESC LIMIT 1",
        (customer.id,),
    )
    if row is None:
        raise ApiError(404, "NOT_FOUND", f"{customer.id} has no verification yet")
    return JSONResponse(
        {
            "id": row["id"],
            "customerId": row["customer_id"],
            "verificationStatus": row["status"],
            "errors": from_json(row["errors"]),
            "createdAt": row["created_at"],
        }
    )


ROUTES = [
    api_route(
        "/verifications",
        Operation("POST", create_verification, body=True),
        Operation("GET", latest_verification),
    ),
]
