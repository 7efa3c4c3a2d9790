"""Contact verification (§3 Contact verification, §4 Customers and verification): send a
one-time code to a channel, confirm it, and the sandbox endpoint that shows the last code.

Which channels need it is decided by ``customer_store.required_channels`` (individuals in
the EEA, per channel on file). The code's delivery is not shown by the interface; the
sandbox keeps the last code per channel, and the reference adapter reads it.
"""

from __future__ import annotations

import hmac
import re
import secrets
from dataclasses import replace

from starlette.responses import JSONResponse, Response

from reference.customers.store import (
    Customer,
    load_or_404,
    render,
    required_channels,
    save,
)
from reference.kernel.clock import iso, utc_now
from reference.kernel.errors import ApiError, FieldError, InvalidInput, Unauthorized
from reference.kernel.routing import ApiRequest, Operation, api_route
from reference.kernel.seams import seam

CHANNELS = ("email", "phone")

CODE_CHANNEL_REQUIRED = seam(
    "customers.code_channel_required",
    "whether the provider requires verification of the channel a code is asked for"
    " (context: customer, channel)",
)

CODE_SENT = seam(
    "customers.code_sent",
    "the customer once a code is sent for a channel: unchanged, the channel still PENDING"
    " (context: channel, resent: whether a code was sent before)",
)


def _not_required(customer: Customer, channel: str) -> ApiError:
    return ApiError(
        409,
        "CONTACT_VERIFICATION_NOT_REQUIRED",
        f"the provider does not require {channel} verification for {customer.id}",
    )


# A code as the sandbox sends it: the code pattern the served document declares
# (schemas/requests/contact-confirm.json); another shape is invalid input (400).
CODE = re.compile(r"[0-9]{6}")


def _code_mismatch() -> Unauthorized:
    """A well-formed code that is not the one sent: a proof that fails, as a wrong OTP does
    (§5 item 5: 401 with the reason)."""
    return Unauthorized("code mismatch: not the code last sent")


def send_code(request: ApiRequest, channel: str) -> Response:
    """``POST .../verify-email`` or ``.../verify-phone``: a new code replaces the last."""
    services = request.services
    db = services.db
    with db.transaction():
        customer = load_or_404(db, request.platform.id, request.path_params["customerId"])
        required = services.settings.seams.apply(
            CODE_CHANNEL_REQUIRED,
            channel in required_channels(customer),
            customer=customer,
            channel=channel,
        )
        if not required:
            raise _not_required(customer, channel)
        resent = db.fetchone(
            "SELECT 1 FROM contact_codes WHERE customer_id = ? AND channel = ?",
            (customer.id, channel),
        )
        after = services.settings.seams.apply(
            CODE_SENT, customer, channel=channel, resent=resent is not None
        )
        if after is not customer:
            save(db, after)
        db.execute(
            """INSERT INTO contact_codes (customer_id, channel, code, sent_at)
               VALUES (?, ?, ?, ?) ON CONFLICT (customer_id, channel)
               DO UPDATE SET code = excluded.code, sent_at = excluded.sent_at""",
            (customer.id, channel, f"{secrets.randbelow(10**6):06d}", iso(utc_now())),
        )
    return JSONResponse({"channel": channel, "status": "SENT"})


def confirm_code(request: ApiRequest, channel: str) -> Response:
    """``POST .../verify-email/confirm {code}``: the channel becomes ``VERIFIED``."""
    db = request.services.db
    with db.transaction():
        customer = load_or_404(db, request.platform.id, request.path_params["customerId"])
        if channel not in required_channels(customer):
            raise _not_required(customer, channel)
        row = db.fetchone(
            "SELECT code FROM contact_codes WHERE customer_id = ? AND channel = ?",
            (customer.id, channel),
        )
        sent = request.body.get("code")
        if not isinstance(sent, str) or CODE.fullmatch(sent) is None:
            raise InvalidInput([FieldError("code", "CODE", "must be the 6 digits sent")])
        if row is None:  # the channel's state: nothing sent yet
            raise ApiError(409, "NO_CODE_SENT", f"no {channel} code was sent to {customer.id}")
        if not hmac.compare_digest(sent.encode(), row["code"].encode()):
            raise _code_mismatch()
        if channel == "email":
            customer = replace(customer, email_verified=True)
        else:
            customer = replace(customer, phone_verified=True)
        stored = save(db, customer)
    return JSONResponse(render(stored))


def last_code(request: ApiRequest) -> Response:
    """Sandbox only: ``GET /sandbox/customers/{customerId}/contact-verification/{channel}``
    → ``{"code"}``, the last code sent; 404 before any."""
    db = request.services.db
    channel = request.path_params["channel"]
    customer = load_or_404(db, request.platform.id, request.path_params["customerId"])
    row = db.fetchone(
        "SELECT code FROM contact_codes WHERE customer_id = ? AND channel = ?",
        (customer.id, channel),
    )
    if channel not in CHANNELS or row is None:
        raise ApiError(404, "NOT_FOUND", f"no {channel} code was sent to {customer.id}")
    return JSONResponse({"code": row["code"]})


def _send_email(request: ApiRequest) -> Response:
    return send_code(request, "email")


def _send_phone(request: ApiRequest) -> Response:
    return send_code(request, "phone")


def _confirm_email(request: ApiRequest) -> Response:
    return confirm_code(request, "email")


def _confirm_phone(request: ApiRequest) -> Response:
    return confirm_code(request, "phone")


ROUTES = [
    api_route("/customers/{customerId}/verify-email", Operation("POST", _send_email)),
    api_route("/customers/{customerId}/verify-phone", Operation("POST", _send_phone)),
    api_route(
        "/customers/{customerId}/verify-email/confirm",
        Operation("POST", _confirm_email, body=True),
    ),
    api_route(
        "/customers/{customerId}/verify-phone/confirm",
        Operation("POST", _confirm_phone, body=True),
    ),
    api_route(
        "/sandbox/customers/{customerId}/contact-verification/{channel}",
        Operation("GET", last_code),
    ),
]
