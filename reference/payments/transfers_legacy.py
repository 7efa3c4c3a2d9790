"""The deprecated same-currency transfers (§4 table, §9.2): ``POST /transfer-in`` and
``POST /transfer-out``, still working (SANDBOX.md, "Just-in-time funding, pull
sources, UMA and on-chain transfers").

Their shapes are not shown; ours: ``{source: {accountId}, destination: {accountId}, amount,
description?}`` with ``amount`` in the smallest unit of the one currency both accounts
hold. ``transfer-in`` pulls from a pullable external account into an internal one;
``transfer-out`` pays from an internal account to an external one. Each is a quote created
with ``immediatelyExecute`` behind the scenes (the same validation, ledger and payment
path, one DB transaction) and answers ``201`` with the Transaction.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from starlette.responses import JSONResponse, Response

from reference.accounts import external_accounts
from reference.kernel.errors import ApiError
from reference.kernel.field_checks import text
from reference.kernel.routing import ApiRequest, Operation, api_route
from reference.kernel.seams import seam
from reference.kernel.validation import Problems, at
from reference.payments import execution as payments
from reference.payments import quote_store
from reference.payments import transaction_store as txns
from reference.payments.quote_validation import validate

MAX_AMOUNT = 10**15
IN, OUT = "in", "out"

TRANSFER_REFUSAL = seam(
    "transfers.refusal",
    "the error answered instead of serving a deprecated transfer, or None to serve it"
    " (context: direction, 'in' or 'out')",
)


def _quote_body(body: Mapping[str, Any]) -> dict[str, Any]:
    """The ``POST /quotes`` body the transfer stands for; its own fields checked first."""
    problems = Problems()
    ids: dict[str, str] = {}
    for side in ("source", "destination"):
        obj = problems.required(body, side, "")
        if obj is not None and (obj := problems.object(side, obj)) is not None:
            value = problems.required(obj, "accountId", side)
            if value is not None and text(problems, at(side, "accountId"), value) is not None:
                ids[side] = value
    amount = problems.required(body, "amount", "")
    if amount is not None:
        amount = problems.integer("amount", amount, minimum=1, maximum=MAX_AMOUNT)
    description = body.get("description")
    if "description" in body:  # null included: it is not a description
        problems.string("description", description)
    problems.raise_if_any()
    quote: dict[str, Any] = {
        "source": {"sourceType": "ACCOUNT", "accountId": ids["source"]},
        "destination": {"destinationType": "ACCOUNT", "accountId": ids["destination"]},
        "lockedCurrencySide": "SENDING",
        "lockedCurrencyAmount": amount,
        "immediatelyExecute": True,
    }
    if description is not None:
        quote["description"] = description
    return quote


def _transfer(request: ApiRequest, direction: str) -> Response:
    services = request.services
    platform_id = request.platform.id
    refusal: ApiError | None = services.settings.seams.apply(
        TRANSFER_REFUSAL, None, direction=direction
    )
    if refusal is not None:
        raise refusal
    body = _quote_body(request.body)
    with services.db.transaction():
        valid = validate(services, platform_id, body)
        problems = Problems()  # the accounts' kinds and currencies: their state, 409
        external = at("source" if direction == IN else "destination", "accountId")
        is_external = isinstance(
            valid.source if direction == IN else valid.destination,
            external_accounts.ExternalAccount,
        )
        if not is_external:
            problems.conflict(external, "NOT_EXTERNAL", "must be an external account")
        if valid.sending.code != valid.receiving.code:
            problems.conflict("destination.accountId", "CURRENCY_MISMATCH", "same currency only")
        problems.raise_if_any()
        quote = quote_store.create(
            db=services.db,
            platform_id=platform_id,
            valid=valid,
            lifetime_s=services.settings.quote_lifetime_s,
        )
        quote = payments.execute_on_creation(services, quote)
        transaction = txns.load(services.db, platform_id, quote.transaction_id)
        assert transaction is not None  # created with the quote
        answer = txns.render(transaction)
    return JSONResponse(answer, status_code=201)


def transfer_in(request: ApiRequest) -> Response:
    """``POST /transfer-in`` → 201 Transaction (deprecated)."""
    return _transfer(request, IN)


def transfer_out(request: ApiRequest) -> Response:
    """``POST /transfer-out`` → 201 Transaction (deprecated)."""
    return _transfer(request, OUT)


ROUTES = [
    api_route("/transfer-in", Operation("POST", transfer_in, body=True)),
    api_route("/transfer-out", Operation("POST", transfer_out, body=True)),
]
