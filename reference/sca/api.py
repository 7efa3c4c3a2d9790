"""SCA endpoints (§4 Quotes and transactions; §4 Cards, stablecoins, agents, auth, sandbox):
``POST /quotes/{quoteId}/authorize`` and ``POST /sca/login/complete``.

An authorize call is one DB transaction: a valid proof on the last challenge releases the
transfer (``payments.release``) in the same transaction. A wrong proof is counted (and may
lock the customer's SCA) before the error is answered, so the count survives the error.
"""

from __future__ import annotations

from starlette.responses import JSONResponse, Response

from reference.kernel.routing import ApiRequest, Operation, api_route
from reference.payments import execution as payments
from reference.payments import quote_store
from reference.sca import authentication as sca


def authorize_quote(request: ApiRequest) -> Response:
    """→ 200 Quote (``PENDING_AUTHORIZATION`` with the next challenge, or released:
    ``PROCESSING`` / ``COMPLETED``); 409 ``SCA_NOT_REQUIRED`` / ``SCA_SESSION_REQUIRED`` /
    ``QUOTE_NOT_PENDING_AUTHORIZATION``; 401 wrong proof; 423 ``ACCOUNT_LOCKED``."""
    services = request.services
    with services.db.transaction():
        outcome = sca.authorize(
            services, request.platform.id, request.path_params["quoteId"], request.body
        )
        quote = outcome.quote
        if outcome.release:
            quote = payments.release(services, quote)
    if outcome.error is not None:
        raise outcome.error
    return JSONResponse(quote_store.render(quote))


def complete_login(request: ApiRequest) -> Response:
    """→ 200 ``{customerId, sessionExpiresAt}`` (now + 180 days)."""
    services = request.services
    with services.db.transaction():
        session = sca.login_complete(services, request.platform.id, request.body)
    return JSONResponse(session)


ROUTES = [
    api_route("/quotes/{quoteId}/authorize", Operation("POST", authorize_quote, body=True)),
    api_route("/sca/login/complete", Operation("POST", complete_login, body=True)),
]
