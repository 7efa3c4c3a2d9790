"""Hosted verification links (§4 ``POST /customers/{customerId}/kyc-link``) and the
sandbox endpoint that finishes the hosted flow (``POST /sandbox/kyc-links/{linkId}/complete``).

Every call mints a fresh single-use link; the same ``Idempotency-Key`` with the same body
gives the same link back. The page behind ``kycUrl`` is served by ``reference.customers.hosted``.
"""

from __future__ import annotations

import re
import secrets
import sqlite3
import uuid
from datetime import timedelta
from urllib.parse import quote

from starlette.responses import JSONResponse, Response

from reference.customers.store import Customer, load, load_or_404, pending_channels
from reference.customers.verifications import submit
from reference.kernel.clock import iso, parse_iso, utc_now
from reference.kernel.db import Database
from reference.kernel.errors import ApiError
from reference.kernel.field_checks import BLANK
from reference.kernel.routing import ApiRequest, Operation, api_route
from reference.kernel.seams import seam
from reference.kernel.validation import Problems

PROVIDER = "SANDBOX_KYC"
LINK_LIFETIME = timedelta(hours=24)
MAX_IDEMPOTENCY_KEY = 255  # §8 Limits: Idempotency-Key up to 255 characters
IDEMPOTENCY_HEADER = "Idempotency-Key"
# An absolute URI with an authority (``https://app.example/done``, ``myapp://callback``) and
# no blank: the redirectUri pattern the OpenAPI document the reference serves by declares.
REDIRECT_URI = re.compile(f"[A-Za-z][A-Za-z0-9+.-]*://[^/?#{BLANK}]+[^{BLANK}]*")

LINK_PENDING_CHANNELS = seam(
    "customers.link_pending_channels",
    "the contact channels still to verify, which refuse a KYC link with 409 (context: customer)",
)
ANSWERED_LINK = seam(
    "customers.answered_link",
    "the stored link a kyc-link call answers with: None, so a fresh one is minted"
    " (context: db, customer)",
)


def kyc_url(root_url: str, link: sqlite3.Row) -> str:
    """``{root}/hosted/kyc/{linkId}?redirectUri=<encoded>``."""
    return f"{root_url}/hosted/kyc/{link['id']}?redirectUri={quote(link['redirect_uri'], safe='')}"


def find_link(db: Database, link_id: str, platform_id: str | None = None) -> sqlite3.Row | None:
    """A link by id; with ``platform_id``, only that platform's."""
    if platform_id is None:
        return db.fetchone("SELECT * FROM kyc_links WHERE id = ?", (link_id,))
    return db.fetchone(
        "SELECT * FROM kyc_links WHERE id = ? AND platform_id = ?", (link_id, platform_id)
    )


def is_expired(link: sqlite3.Row) -> bool:
    """Whether the link's 24 hours are over."""
    return parse_iso(link["expires_at"]) <= utc_now()


def _validate(request: ApiRequest) -> tuple[str, str | None]:
    problems = Problems()
    key = request.headers.get(IDEMPOTENCY_HEADER)
    if key is not None and not 1 <= len(key) <= MAX_IDEMPOTENCY_KEY:
        problems.add(
            IDEMPOTENCY_HEADER, "MAX_LENGTH" if key else "MIN_LENGTH", "must be 1 to 255 characters"
        )
    redirect = problems.required(request.body, "redirectUri", "")
    if (
        redirect is not None
        and problems.string("redirectUri", redirect) is not None
        and REDIRECT_URI.fullmatch(redirect) is None
    ):
        problems.add("redirectUri", "URL", "must be an absolute URI scheme://host...")
    problems.raise_if_any()
    return redirect, key


def _render(request: ApiRequest, link: sqlite3.Row) -> Response:
    return JSONResponse(
        {
            "kycUrl": kyc_url(request.root_url, link),
            "expiresAt": link["expires_at"],
            "provider": PROVIDER,
            "token": link["token"],
        }
    )


def _replay(
    db: Database, request: ApiRequest, customer: Customer, redirect: str, key: str
) -> sqlite3.Row | None:
    """The link an earlier call with this key minted, or None; 409 for another body."""
    link = db.fetchone(
        "SELECT * FROM kyc_links WHERE platform_id = ? AND idempotency_key = ?",
        (request.platform.id, key),
    )
    if link is None:
        return None
    if link["customer_id"] != customer.id or link["redirect_uri"] != redirect:
        raise ApiError(
            409,
            "IDEMPOTENCY_KEY_REUSED",
            f"Idempotency-Key {key!r} was used for another request (link {link['id']})",
        )
    return link


def create_link(request: ApiRequest) -> Response:
    """``POST /customers/{customerId}/kyc-link {redirectUri}`` → 200 link."""
    services = request.services
    settings = services.settings
    db = services.db
    redirect, key = _validate(request)
    with db.transaction():
        customer = load_or_404(db, request.platform.id, request.path_params["customerId"])
        if key is not None and (link := _replay(db, request, customer, redirect, key)):
            return _render(request, link)
        pending = settings.seams.apply(
            LINK_PENDING_CHANNELS, pending_channels(customer), customer=customer
        )
        if pending:
            raise ApiError(
                409,
                "CONTACT_VERIFICATION_INCOMPLETE",
                f"verify the customer's {' and '.join(pending)} before generating a link",
            )
        answered: sqlite3.Row | None = settings.seams.apply(
            ANSWERED_LINK, None, db=db, customer=customer
        )
        if answered is not None:
            return _render(request, answered)
        now = utc_now()
        link_id = str(uuid.uuid4())
        db.execute(
            """INSERT INTO kyc_links (id, platform_id, customer_id, redirect_uri, token,
               idempotency_key, expires_at, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)""",
            (
                link_id,
                request.platform.id,
                customer.id,
                redirect,
                f"sbx_kyc_{secrets.token_urlsafe(24)}",
                key,
                iso(now + LINK_LIFETIME),
                iso(now),
            ),
        )
        link = find_link(db, link_id)
    assert link is not None
    return _render(request, link)


def complete_link(request: ApiRequest) -> Response:
    """Sandbox only: the customer finishes the hosted flow behind a link. The flow
    collects whatever was missing, so the submission is complete; → 200 Verification."""
    services = request.services
    db = services.db
    link_id = request.path_params["linkId"]
    with db.transaction():
        link = find_link(db, link_id, request.platform.id)
        if link is None:
            raise ApiError(404, "NOT_FOUND", f"no KYC link {link_id}")
        if link["used_at"] is not None:
            raise ApiError(
                409, "LINK_ALREADY_USED", f"KYC link {link_id} was used; it can be used once"
            )
        if is_expired(link):
            raise ApiError(
                409, "LINK_EXPIRED", f"KYC link {link_id} has expired; generate a new one"
            )
        customer = load(db, request.platform.id, link["customer_id"])
        assert customer is not None  # links reference customers (foreign key)
        verification = submit(services, customer, hosted=True)
        db.execute("UPDATE kyc_links SET used_at = ? WHERE id = ?", (iso(utc_now()), link_id))
    return JSONResponse(verification)


ROUTES = [
    api_route("/customers/{customerId}/kyc-link", Operation("POST", create_link, body=True)),
    api_route("/sandbox/kyc-links/{linkId}/complete", Operation("POST", complete_link)),
]
