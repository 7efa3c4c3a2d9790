"""Quote endpoints (§4 Quotes and transactions): ``POST /quotes``, ``GET /quotes/{quoteId}``
and ``POST /quotes/{quoteId}/execute``.

Creation validates and prices (``quote_validation``), stores the quote with its
transaction (``quote_store``) and, with ``immediatelyExecute``, executes it in the same DB
transaction (``payments``): a request that cannot be paid leaves nothing behind.
"""

from __future__ import annotations

from starlette.responses import JSONResponse, Response

from reference.kernel import variant
from reference.kernel.errors import ApiError
from reference.kernel.routing import ApiRequest, Operation, api_route
from reference.kernel.seams import seam
from reference.payments import authorization as sca
from reference.payments import execution as payments
from reference.payments import quote_store
from reference.payments.quote_validation import validate
from reference.wallet import accounts as wallet_accounts

CREATED_BODY = seam(
    "quotes.created_body",
    "the Quote body POST /quotes answers 201 (context: quote)",
)
READ_BODY = seam(
    "quotes.read_body",
    "a Quote body answered by POST /quotes or GET /quotes/{quoteId} (context: quote)",
)
CREATED_JSON = seam(
    "quotes.created_json",
    "the bytes POST /quotes answers 201: the JSON text of the Quote body (context: quote)",
)


def create_quote(request: ApiRequest) -> Response:
    """``POST /quotes`` → 201 Quote (``PENDING``, or ``COMPLETED`` when executed at once)."""
    services = request.services
    with services.db.transaction():
        valid = validate(services, request.platform.id, request.body)
        lifetime = services.settings.quote_lifetime_s
        quote = quote_store.create(services.db, request.platform.id, valid, lifetime)
        quote = sca.challenge_on_create(services, quote)  # just-in-time under SCA
        if valid.immediately:
            quote = payments.execute_on_creation(services, quote)
    seams = services.settings.seams
    body = seams.apply(CREATED_BODY, quote_store.render(quote), quote=quote)
    body = seams.apply(READ_BODY, body, quote=quote)
    answer = JSONResponse(body, status_code=201)
    text = seams.apply(CREATED_JSON, answer.body, quote=quote)
    if text is answer.body:
        return answer
    return Response(text, status_code=201, media_type="application/json")


def get_quote(request: ApiRequest) -> Response:
    """``GET /quotes/{quoteId}``; a ``PENDING`` quote past ``expiresAt`` reads ``EXPIRED``."""
    db = request.services.db
    quote_id = request.path_params["quoteId"]
    with db.transaction():
        quote_store.expire_due(db, request.platform.id)
        sca.expire_due(request.services, request.platform.id)
        quote = quote_store.load(db, request.platform.id, quote_id)
    if quote is None:
        raise ApiError(404, "NOT_FOUND", f"no quote {quote_id}")
    seams = request.services.settings.seams
    return JSONResponse(seams.apply(READ_BODY, quote_store.render(quote), quote=quote))


def _source_account_id(request: ApiRequest, quote_id: str) -> str | None:
    """The ``source.accountId`` of the platform's quote, None when there is no such quote or
    its source names no account."""
    quote = quote_store.load(request.services.db, request.platform.id, quote_id)
    account_id = None if quote is None else quote.fields.get("source", {}).get("accountId")
    return account_id if isinstance(account_id, str) else None


def execute_quote(request: ApiRequest) -> Response:
    """``POST /quotes/{quoteId}/execute`` → 200 Quote ``PROCESSING``; 409 when it is no
    longer ``PENDING``, 400 ``QUOTE_EXPIRED`` after ``expiresAt``, 400
    ``INSUFFICIENT_FUNDS``. From an embedded wallet: 202 until the signed retry (§5 item 4).
    The variant reference answers the Quote with 202."""
    quote_id = request.path_params["quoteId"]
    source = _source_account_id(request, quote_id)
    challenge = wallet_accounts.execute_challenge(request, quote_id, source)
    if challenge is not None:
        return challenge
    with wallet_accounts.signed_execute(request, quote_id, source):
        quote = payments.execute(request.services, request.platform.id, quote_id)
    status = variant.EXECUTE_STATUS if request.services.settings.variant else 200
    return JSONResponse(quote_store.render(quote), status_code=status)


ROUTES = [
    api_route("/quotes", Operation("POST", create_quote, body=True)),
    api_route("/quotes/{quoteId}", Operation("GET", get_quote)),
    api_route("/quotes/{quoteId}/execute", Operation("POST", execute_quote)),
]
