"""Pages the sandbox hosts outside the versioned API, without credentials: the hosted
verification flow behind a ``kycUrl`` and the agreement texts behind their ``url``.

They are small HTML pages; the sandbox's hosted flow is finished through
``POST /sandbox/kyc-links/{linkId}/complete`` (the reference adapter calls it).
"""

from __future__ import annotations

from html import escape

from starlette.requests import Request
from starlette.responses import HTMLResponse, Response
from starlette.routing import Route

from reference.customers.agreements import BY_SLUG
from reference.customers.kyc_links import find_link, is_expired
from reference.customers.store import INDIVIDUAL
from reference.kernel.services import Services
from reference.kernel.sync_calls import call_sync

_PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>{title}</title></head>
<body><h1>{title}</h1>{body}</body></html>
"""


def _page(title: str, body: str, status: int = 200) -> HTMLResponse:
    return HTMLResponse(_PAGE.format(title=escape(title), body=body), status_code=status)


def _kyc_page(services: Services, link_id: str) -> Response:
    db = services.db
    link = find_link(db, link_id)
    if link is None:
        return _page("Link not found", "<p>This verification link does not exist.</p>", 404)
    if link["used_at"] is not None:
        return _page("Link already used", "<p>Each verification link works once.</p>", 410)
    if is_expired(link):
        return _page("Link expired", "<p>Ask for a new verification link.</p>", 410)
    row = db.fetchone("SELECT customer_type FROM customers WHERE id = ?", (link["customer_id"],))
    kind = "identity (KYC)" if row is not None and row[0] == INDIVIDUAL else "business (KYB)"
    body = (
        f"<p>Sandbox {kind} verification. This page stands in for the provider's flow; "
        "finish it with <code>POST /sandbox/kyc-links/{linkId}/complete</code>.</p>"
        f'<p><a href="{escape(link["redirect_uri"])}">Return to the platform</a></p>'
    ).replace("{linkId}", escape(link_id))
    return _page("Verify your identity", body)


async def kyc_page(request: Request) -> Response:
    """``GET /hosted/kyc/{linkId}``: 200 while the link is usable, 410 once used or expired."""
    services: Services = request.app.state.services
    return await call_sync(services.settings, _kyc_page, services, request.path_params["linkId"])


async def agreement_page(request: Request) -> Response:
    """``GET /hosted/agreements/{slug}``: the agreement's (placeholder) text."""
    agreement = BY_SLUG.get(request.path_params["slug"])
    if agreement is None:
        return _page("Agreement not found", "<p>No such agreement.</p>", 404)
    body = (
        f"<p>{escape(agreement.type)}, version {escape(agreement.version)}.</p>"
        "<p>Sandbox placeholder text: no terms apply to sandbox customers.</p>"
    )
    return _page(agreement.type, body)


ROUTES = [
    Route("/hosted/kyc/{linkId}", kyc_page, methods=["GET"]),
    Route("/hosted/agreements/{slug}", agreement_page, methods=["GET"]),
]
