"""Just-in-time funding (§1 Funding, §2 Quote ``paymentInstructions``, §3, §4 Quotes rule 2,
§4 ``POST /sandbox/send``; SANDBOX.md, "Just-in-time funding, pull sources, UMA and
on-chain transfers").

A ``REALTIME_FUNDING`` quote carries payment instructions with a reference unique to the
quote. It is never executed by ``POST /quotes/{id}/execute`` (``409
QUOTE_NOT_EXECUTABLE``); a payment carrying its reference executes it: the money arrives
from outside the ledger and the quote runs the same execution as any other
(``payments.release``), in one DB transaction.

Two sandbox endpoints pay a quote: ``POST /sandbox/send {quoteId, currencyCode,
currencyAmount?}`` (shown: the currency must be the source's, the amount defaults to
``totalSendingAmount``; another amount is ``400``, our choice) and ``POST
/sandbox/realtime-funding/payments {quoteId, reference, currencyCode, currencyAmount?}``
(ours: a deposit into the quote's instructions that carries ``reference``; a wrong
reference is not matched, nothing executes, and the answer is ``{"matched": false}``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from starlette.responses import JSONResponse, Response

from reference.accounts import funding
from reference.kernel.errors import ApiError
from reference.kernel.field_checks import text
from reference.kernel.routing import ApiRequest, Operation, api_route
from reference.kernel.seams import seam
from reference.kernel.services import Services
from reference.kernel.validation import Problems
from reference.payments import execution as payments
from reference.payments import quote_store
from reference.payments import transaction_store as txns
from reference.payments.quote_store import Quote

MAX_AMOUNT = 10**15

PAYMENT_CURRENCY = seam(
    "jit.payment_currency",
    "the currency code a payment into a just-in-time quote must carry, the source's"
    " (context: quote, paid: the currencyCode sent)",
)
REFERENCE_MATCHES = seam(
    "jit.reference_matches",
    "whether a deposit into a just-in-time quote's instructions carries its reference, so"
    " executes it (context: quote, reference: the one sent)",
)


def _payment(body: Mapping[str, Any], *, with_reference: bool) -> tuple[str, str, int | None, str]:
    problems = Problems()
    quote_id = problems.required(body, "quoteId", "")
    if quote_id is not None:
        quote_id = text(problems, "quoteId", quote_id)
    code = problems.required(body, "currencyCode", "")
    if code is not None:
        code = problems.string("currencyCode", code)
    amount = body.get("currencyAmount")
    if amount is not None:
        amount = problems.integer("currencyAmount", amount, minimum=1, maximum=MAX_AMOUNT)
    reference: Any = ""
    if with_reference:
        reference = problems.required(body, "reference", "")
        if reference is not None:
            reference = problems.string("reference", reference)
    problems.raise_if_any()
    return str(quote_id), str(code), amount, str(reference)


def _payable(services: Services, platform_id: str, quote_id: str) -> Quote:
    quote_store.expire_due(services.db, platform_id)
    quote = quote_store.load(services.db, platform_id, quote_id)
    if quote is None:
        raise ApiError(404, "NOT_FOUND", f"no quote {quote_id}")
    return quote


def _check_payment(services: Services, quote: Quote, code: str, amount: int | None) -> int:
    """The amount paid; every mismatch with the quote at once (409 CONFLICT: the body is
    well formed, the quote's state refuses it, as for any value another record decides)."""
    problems = Problems()
    fields = quote.fields
    if not funding.is_realtime(fields):
        problems.conflict(
            "quoteId", "NOT_REALTIME_FUNDING", "the quote's source is not REALTIME_FUNDING"
        )
    expected_code = services.settings.seams.apply(
        PAYMENT_CURRENCY,
        str(fields["source"].get("currency", fields["sendingCurrency"]["code"])),
        quote=quote,
        paid=code,
    )
    if code != expected_code:
        problems.conflict("currencyCode", "CURRENCY_MISMATCH", f"must be {expected_code}")
    total = int(fields["totalSendingAmount"])
    paid = total if amount is None else amount
    if paid != total:
        problems.conflict(
            "currencyAmount", "AMOUNT_MISMATCH", f"must be {total}, the quote's total"
        )
    problems.raise_if_any()
    if quote.status == quote_store.EXPIRED:
        raise ApiError(400, "QUOTE_EXPIRED", f"{quote.id} expired at {quote.expires_at}")
    if quote.status != quote_store.PENDING:
        raise ApiError(409, "QUOTE_ALREADY_EXECUTED", f"{quote.id} is {quote.status}")
    return paid


def _receive(services: Services, quote: Quote) -> dict[str, Any]:
    """The deposit arrives (from outside the ledger) and the quote executes."""
    db = services.db
    payments.release(services, quote)
    transaction = txns.load(db, quote.platform_id, quote.transaction_id)
    assert transaction is not None  # created with the quote
    return txns.render(transaction)


def sandbox_send(request: ApiRequest) -> Response:
    """``POST /sandbox/send`` → the quote's Transaction, executed."""
    quote_id, code, amount, _ = _payment(request.body, with_reference=False)
    services = request.services
    with services.db.transaction():
        quote = _payable(services, request.platform.id, quote_id)
        _check_payment(services, quote, code, amount)
        body = _receive(services, quote)
    return JSONResponse(body)


def receive_payment(request: ApiRequest) -> Response:
    """``POST /sandbox/realtime-funding/payments``: a deposit into the quote's
    instructions; executes it only when ``reference`` is the quote's."""
    quote_id, code, amount, reference = _payment(request.body, with_reference=True)
    services = request.services
    with services.db.transaction():
        quote = _payable(services, request.platform.id, quote_id)
        matches = services.settings.seams.apply(
            REFERENCE_MATCHES,
            reference == funding.reference_of(quote),
            quote=quote,
            reference=reference,
        )
        if not matches:
            return JSONResponse({"matched": False, "quoteId": quote.id, "transaction": None})
        _check_payment(services, quote, code, amount)
        body = _receive(services, quote)
    return JSONResponse({"matched": True, "quoteId": quote.id, "transaction": body})


ROUTES = [
    api_route("/sandbox/send", Operation("POST", sandbox_send, body=True)),
    api_route("/sandbox/realtime-funding/payments", Operation("POST", receive_payment, body=True)),
]
