"""Quoted rates refused at execution (§3 Quote and transaction, §7 Errors:
``QUOTE_RATE_UNAVAILABLE``; SANDBOX.md, "Limits, refused rates and compliance holds").

The interface shows no trigger, so the sandbox has one: ``POST
/sandbox/quotes/{quoteId}/refuse-rate`` marks a ``PENDING`` quote's rate as refused (the
reference adapter's ``pytest_conformance_refuse_quote_rate``). Executing it then answers
``409 QUOTE_RATE_UNAVAILABLE``: nothing is debited or exchanged, and the quote and its
transaction become ``EXPIRED`` in their own DB transaction, so a new quote is the recovery.
Every later execute of that quote answers the same.
"""

from __future__ import annotations

from starlette.responses import JSONResponse, Response

from reference.kernel.clock import iso, later_than, utc_now
from reference.kernel.errors import ApiError
from reference.kernel.routing import ApiRequest, Operation, api_route
from reference.kernel.seams import seam
from reference.kernel.services import Services
from reference.payments import quote_store
from reference.payments import transaction_store as txns

STATUS = 409
CODE = "QUOTE_RATE_UNAVAILABLE"

EXPIRED_TRANSACTION = seam(
    "rate_refusals.expired_transaction",
    "the transaction a refused rate has just made EXPIRED, nothing exchanged or debited"
    " (context: services, quote; inside the refusing DB transaction)",
)


def refuse_if_marked(services: Services, platform_id: str, quote_id: str) -> None:
    """Raise ``QUOTE_RATE_UNAVAILABLE`` if the quote's rate is refused; first make a
    ``PENDING`` quote and its transaction ``EXPIRED`` (committed). Call before executing."""
    db = services.db
    with db.transaction():
        row = db.fetchone(
            "SELECT 1 FROM rate_refusals WHERE quote_id = ? AND platform_id = ?",
            (quote_id, platform_id),
        )
        if row is None:
            return
        quote = quote_store.load(db, platform_id, quote_id)
        if quote is not None and quote.status == quote_store.PENDING:
            transaction = txns.load(db, platform_id, quote.transaction_id)
            stamp = later_than(quote.updated_at)
            quote_store.set_status(db, quote, quote_store.EXPIRED, stamp)
            if transaction is not None:
                stamp = later_than(max(stamp, transaction.updated_at))
                expired = txns.save(db, transaction, stamp, status=txns.EXPIRED)
                services.settings.seams.apply(
                    EXPIRED_TRANSACTION, expired, services=services, quote=quote
                )
    raise ApiError(
        STATUS,
        CODE,
        f"the rate quoted on {quote_id} was refused at execution; nothing was exchanged;"
        " create a new quote (§3 Quote and transaction)",
    )


def refuse_rate(request: ApiRequest) -> Response:
    """``POST /sandbox/quotes/{quoteId}/refuse-rate`` → the Quote, whose next execute will
    fail with ``QUOTE_RATE_UNAVAILABLE``; a quote no longer ``PENDING`` is ``409``."""
    db = request.services.db
    platform_id = request.platform.id
    quote_id = request.path_params["quoteId"]
    with db.transaction():
        quote_store.expire_due(db, platform_id)
        quote = quote_store.load(db, platform_id, quote_id)
        if quote is None:
            raise ApiError(404, "NOT_FOUND", f"no quote {quote_id}")
        if quote.status != quote_store.PENDING:
            raise ApiError(409, "QUOTE_NOT_PENDING", f"{quote.id} is {quote.status}")
        db.execute(
            """INSERT OR IGNORE INTO rate_refusals (quote_id, platform_id, refused_at)
               VALUES (?, ?, ?)""",
            (quote.id, platform_id, iso(utc_now())),
        )
    return JSONResponse(quote_store.render(quote))


ROUTES = [api_route("/sandbox/quotes/{quoteId}/refuse-rate", Operation("POST", refuse_rate))]
