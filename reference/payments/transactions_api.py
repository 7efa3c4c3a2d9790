"""Transaction endpoints (§4 Quotes and transactions): ``GET /transactions`` and
``GET /transactions/{transactionId}``.

The list answers a page of Transactions (``kernel/pages.py``), newest first, filtered by
``customerId``, ``status`` and ``type`` (the variant reference ignores ``customerId``, which
§4 does not name). ``status`` filters payment transactions only, so combining it with
``type=CARD`` is ``400 INVALID_INPUT`` (§4, §7). Card transactions are listed with
``type=CARD`` or a ``cardId`` filter (a ``Card:`` id or the bare uuid, §4), and only then.
"""

from __future__ import annotations

from starlette.responses import JSONResponse, Response

from reference.cards import issuing as cards
from reference.cards import transactions as card_transactions
from reference.kernel import pages
from reference.kernel.errors import ApiError
from reference.kernel.routing import ApiRequest, Operation, api_route
from reference.kernel.seams import seam
from reference.kernel.validation import Problems
from reference.payments import authorization as sca
from reference.payments import quote_store
from reference.payments import transaction_store as txns

CARD = "CARD"
TYPES = (txns.OUTGOING, "INCOMING", CARD)
CARD_FILTER = seam(
    "transactions.card_filter",
    "the Card: id whose card transactions GET /transactions?cardId= lists"
    " (context: requested, the cardId as sent: a Card: id or the bare uuid)",
)
QUERY_REFUSED = seam(
    "transactions.query_refused",
    "whether GET /transactions refuses its filters with 400 INVALID_INPUT, as it does when one"
    " is invalid (context: status and kind, the status and type filters as sent)",
)
STATUS_FILTER = seam(
    "transactions.status_filter",
    "the status GET /transactions lists payment transactions of, None for every status"
    " (context: requested, the status filter as sent)",
)
LISTED_BODY = seam(
    "transactions.listed_body",
    "a Transaction body in the GET /transactions list (context: transaction)",
)


def list_transactions(request: ApiRequest) -> Response:
    """``GET /transactions?customerId=&status=&type=&cardId=&limit=&cursor=`` → a page;
    another query parameter is ignored."""
    db = request.services.db
    query = request.query
    problems = Problems()
    status, kind = query.get("status"), query.get("type")
    seams = request.services.settings.seams
    if status is not None:
        problems.one_of("status", status, txns.STATUSES)
    if kind is not None:
        problems.one_of("type", kind, TYPES)
    if status is not None and kind == CARD:
        problems.add("status", "NOT_WITH_CARD", "status filters payment transactions only")
    if seams.apply(QUERY_REFUSED, bool(problems), status=status, kind=kind):
        problems.raise_if_any()
    card_id = query.get("cardId") or None
    if kind == CARD or (card_id is not None and kind is None):
        return _card_transactions(request, card_id)
    if kind == "INCOMING" or card_id is not None:
        empty = pages.page(request.services.settings, query, [], record_id=str, render=dict)
        return JSONResponse(empty)
    with db.transaction():
        quote_store.expire_due(db, request.platform.id)
        sca.expire_due(request.services, request.platform.id)
        listed = seams.apply(STATUS_FILTER, status, requested=status)
        customer_id = None if request.services.settings.variant else query.get("customerId")
        found = txns.find(db, request.platform.id, customer_id or None, listed)
    answer = pages.page(
        request.services.settings,
        query,
        found,
        record_id=lambda t: t.id,
        render=lambda t: seams.apply(LISTED_BODY, txns.render(t), transaction=t),
        newest_first=True,
    )
    return JSONResponse(answer)


def _card_transactions(request: ApiRequest, card_id: str | None) -> Response:
    """Card transactions, by card (``Card:`` id or bare uuid) and customer when given."""
    services = request.services
    if card_id is not None:
        card_id = services.settings.seams.apply(
            CARD_FILTER, cards.card_id_of(card_id), requested=card_id
        )
    customer_id = request.query.get("customerId") or None
    found = card_transactions.find(services.db, request.platform.id, customer_id, card_id)
    answer = pages.page(
        services.settings,
        request.query,
        found,
        record_id=lambda t: t.id,
        render=lambda t: card_transactions.render(services, t),
        newest_first=True,
    )
    return JSONResponse(answer)


def get_transaction(request: ApiRequest) -> Response:
    """``GET /transactions/{transactionId}`` → the Transaction."""
    db = request.services.db
    transaction_id = request.path_params["transactionId"]
    with db.transaction():
        quote_store.expire_due(db, request.platform.id)
        sca.expire_due(request.services, request.platform.id)
        transaction = txns.load(db, request.platform.id, transaction_id)
    if transaction is None:
        card_row = card_transactions.load(db, request.platform.id, transaction_id)
        if card_row is not None:
            return JSONResponse(card_transactions.render(request.services, card_row))
        raise ApiError(404, "NOT_FOUND", f"no transaction {transaction_id}")
    return JSONResponse(txns.render(transaction))


ROUTES = [
    api_route("/transactions", Operation("GET", list_transactions)),
    api_route("/transactions/{transactionId}", Operation("GET", get_transaction)),
]
