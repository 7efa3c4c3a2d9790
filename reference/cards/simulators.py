"""The card network simulators of the sandbox (§2 CardTransaction rules; §4: the return
reversal simulator is shown, the other simulators are not, so their paths are our choice).

All answer the card transaction they created or changed (``200``):

- ``POST /sandbox/cards/{cardId}/simulate/authorization {amount, merchant?}``: an
  authorization in the funding account's currency. Declined before money moves
  (``DECLINED`` with ``cardDeclinedReason``) when the card is not ``ACTIVE``
  (``CARD_NOT_ACTIVE``), the funding account is not ``ACTIVE``
  (``NO_ELIGIBLE_FUNDING_SOURCE``) or its available balance is below the amount
  (``INSUFFICIENT_FUNDS``, sandbox only); else ``AUTHORIZED`` and the amount is held.
- ``.../simulate/clearing {transactionId}``: the authorization clears in full: ``SETTLED``.
- ``.../simulate/reversal {transactionId}``: a full reversal before clearing: ``VOIDED``.
- ``.../simulate/expiry {transactionId}``: the authorization expires before clearing:
  ``VOIDED``.
- ``.../simulate/return {transactionId, amount}``: a merchant return against a settled
  purchase opens its own ``CREDIT`` row, ``SETTLED``, ``originalTransactionId`` the purchase,
  the credit in ``settledAmount``; the purchase stays ``SETTLED`` (its ``refundedAmount``
  grows, without an event: its status does not change).
- ``.../simulate/return_reversal {transactionId}`` (the refund row): the return's credit is
  taken back and the refund row becomes ``REVERSED``.

Errors: unknown card or transaction ``404``; a transaction in the wrong state ``409
CARD_TRANSACTION_STATE``; a bad amount ``400 INVALID_INPUT``.
"""

from __future__ import annotations

from typing import Any

from starlette.responses import JSONResponse, Response

from reference.accounts import internal_accounts, ledger
from reference.cards import issuing as cards
from reference.cards import transactions as ct
from reference.kernel.errors import ApiError, FieldError, InvalidInput
from reference.kernel.routing import ApiRequest, Operation, api_route
from reference.kernel.seams import seam
from reference.kernel.services import Services
from reference.kernel.validation import is_integer

HOLD = "CARD_HOLD"
CLEARING = "CARD_CLEARING"
RETURN = "CARD_RETURN"
RETURN_REVERSAL = "CARD_RETURN_REVERSAL"

DECLINED_STATUS = seam(
    "cards.declined_status",
    "the status an authorization declined before money moved is stored in (context: reason,"
    " the cardDeclinedReason)",
)
REVERSED_STATUS = seam(
    "cards.reversed_status",
    "the status a fully reversed authorization takes (context: row, the authorization)",
)
EXPIRED_STATUS = seam(
    "cards.expired_status",
    "the status an authorization that expired before clearing takes (context: row, the"
    " authorization)",
)
RETURN_ROW = seam(
    "cards.return_row",
    "the CREDIT row a merchant return opens, not yet stored; None when the return was recorded"
    " without a row of its own (context: services; purchase, the settled purchase; refunded,"
    " the purchase's refundedAmount after the return)",
)
RETURNED_PURCHASE_STATUS = seam(
    "cards.returned_purchase_status",
    "the status a settled purchase keeps after a merchant return (context: purchase)",
)
RETURN_REVERSED = seam(
    "cards.return_reversed",
    "whether a return_reversal simulation takes the merchant return's credit back and marks"
    " its row REVERSED (context: refund, the return's CREDIT row)",
)


MAX_AMOUNT = 10**15  # as quotes and funding: keeps every balance inside SQLite's integers


def _amount(body: dict[str, Any], field: str = "amount") -> int:
    value: Any = body.get(field)
    if not is_integer(value) or value <= 0:
        raise InvalidInput([FieldError(field, "POSITIVE_INTEGER", "a positive integer amount")])
    if value > MAX_AMOUNT:
        raise InvalidInput([FieldError(field, "MAXIMUM", f"must be at most {MAX_AMOUNT}")])
    return int(value)


def _merchant(body: dict[str, Any]) -> dict[str, Any] | None:
    merchant = body.get("merchant")
    if merchant is None:
        return None
    if not isinstance(merchant, dict) or not all(isinstance(v, str) for v in merchant.values()):
        raise InvalidInput([FieldError("merchant", "OBJECT", "an object of strings")])
    return dict(merchant)


def _transaction(request: ApiRequest, card: cards.Card, *, field: str = "transactionId") -> Any:
    transaction_id = request.body.get(field)
    if not isinstance(transaction_id, str) or not transaction_id:
        raise InvalidInput([FieldError(field, "REQUIRED", "the card transaction id")])
    row = ct.load(request.services.db, request.platform.id, transaction_id)
    if row is None or row.card_id != card.id:
        raise ApiError(404, "NOT_FOUND", f"no transaction {transaction_id} on {card.id}")
    return row


def _state(row: ct.CardTransaction, *wanted: str, direction: str = ct.DEBIT) -> None:
    if row.status not in wanted or row.direction != direction:
        raise ApiError(
            409,
            "CARD_TRANSACTION_STATE",
            f"{row.id} is {row.direction} {row.status}; the simulation needs "
            + " or ".join(wanted),
        )


def _decline_reason(services: Services, card: cards.Card, amount: int) -> str | None:
    account = internal_accounts.load(services.db, card.platform_id, card.account_id)
    if card.status != cards.ACTIVE:
        return "CARD_NOT_ACTIVE"
    if account is None or account.status != cards.ACTIVE:
        return "NO_ELIGIBLE_FUNDING_SOURCE"
    if ledger.balances(services.db, account.id).available < amount:
        return "INSUFFICIENT_FUNDS"
    return None


def authorize(services: Services, card: cards.Card, body: dict[str, Any]) -> ct.CardTransaction:
    """An authorization on ``card``: declined, or approved with the amount held."""
    amount, merchant = _amount(body), _merchant(body)
    account = internal_accounts.load(services.db, card.platform_id, card.account_id)
    currency = account.currency if account is not None else "USD"
    row = ct.new(
        platform_id=card.platform_id, card_id=card.id, customer_id=card.customer_id,
        account_id=card.account_id, currency=currency, amount=amount, merchant=merchant,
    )  # fmt: skip
    reason = _decline_reason(services, card, amount)
    if reason is not None:
        # A decline happens before money moves: DECLINED, never EXCEPTION (§2).
        status = services.settings.seams.apply(DECLINED_STATUS, ct.DECLINED, reason=reason)
        return ct.insert(services, row, status, declined_reason=reason)
    ledger.post(services.db, card.account_id, -amount, HOLD, row.id)
    ledger.post(services.db, card.account_id, amount, HOLD, row.id, held=True)
    return ct.insert(services, row, ct.AUTHORIZED)


def clear(services: Services, row: ct.CardTransaction) -> ct.CardTransaction:
    """The authorization clears in full: the hold becomes the debit."""
    _state(row, ct.AUTHORIZED)
    ledger.post(services.db, row.account_id, -row.amount, CLEARING, row.id, held=True)
    return ct.update(services, row, status=ct.SETTLED, settled=row.amount)


def reverse(services: Services, row: ct.CardTransaction) -> ct.CardTransaction:
    """A full reversal before clearing: the hold is released and the row is ``VOIDED``."""
    _state(row, ct.AUTHORIZED)
    ledger.post(services.db, row.account_id, row.amount, HOLD, row.id)
    ledger.post(services.db, row.account_id, -row.amount, HOLD, row.id, held=True)
    status = services.settings.seams.apply(REVERSED_STATUS, ct.VOIDED, row=row)
    return ct.update(services, row, status=status)


def expire(services: Services, row: ct.CardTransaction) -> ct.CardTransaction:
    """The authorization expires before clearing: the hold is released, ``VOIDED``."""
    _state(row, ct.AUTHORIZED)
    ledger.post(services.db, row.account_id, row.amount, HOLD, row.id)
    ledger.post(services.db, row.account_id, -row.amount, HOLD, row.id, held=True)
    status = services.settings.seams.apply(EXPIRED_STATUS, ct.VOIDED, row=row)
    return ct.update(services, row, status=status)


def merchant_return(
    services: Services, purchase: ct.CardTransaction, amount: int
) -> ct.CardTransaction:
    """A merchant return: its own ``CREDIT`` row; the purchase stays ``SETTLED``."""
    _state(purchase, ct.SETTLED)
    if amount > purchase.settled - purchase.refunded:
        raise InvalidInput([FieldError("amount", "MAX_RETURN", "at most the unreturned amount")])
    ledger.post(services.db, purchase.account_id, amount, RETURN, purchase.id)
    refunded = purchase.refunded + amount
    seams = services.settings.seams
    opened: ct.CardTransaction | None = ct.new(
        platform_id=purchase.platform_id, card_id=purchase.card_id,
        customer_id=purchase.customer_id, account_id=purchase.account_id,
        currency=purchase.currency, amount=amount, direction=ct.CREDIT,
        merchant=purchase.merchant, original_id=purchase.id,
    )  # fmt: skip
    opened = seams.apply(
        RETURN_ROW, opened, services=services, purchase=purchase, refunded=refunded
    )
    if opened is None:  # recorded on the purchase alone: the purchase answers
        stored = ct.load(services.db, purchase.platform_id, purchase.id)
        assert stored is not None
        return stored
    refund = ct.insert(services, opened, ct.SETTLED, settled=amount)
    status = seams.apply(RETURNED_PURCHASE_STATUS, purchase.status, purchase=purchase)
    ct.update(services, purchase, refunded=refunded, status=status)
    return refund


def reverse_return(services: Services, refund: ct.CardTransaction) -> ct.CardTransaction:
    """The return is reversed: its credit is taken back and the refund row is ``REVERSED``."""
    _state(refund, ct.SETTLED, direction=ct.CREDIT)
    if refund.original_id is None:
        raise ApiError(409, "CARD_TRANSACTION_STATE", f"{refund.id} is not a merchant return")
    if not services.settings.seams.apply(RETURN_REVERSED, True, refund=refund):
        return refund
    ledger.post(services.db, refund.account_id, -refund.settled, RETURN_REVERSAL, refund.id)
    return ct.update(services, refund, status=ct.REVERSED)


def _simulate(request: ApiRequest, action: str) -> Response:
    services = request.services
    with services.db.transaction():
        card = cards.require(services.db, request.platform.id, request.path_params["cardId"])
        if action == "authorization":
            row = authorize(services, card, request.body)
        elif action == "clearing":
            row = clear(services, _transaction(request, card))
        elif action == "reversal":
            row = reverse(services, _transaction(request, card))
        elif action == "expiry":
            row = expire(services, _transaction(request, card))
        elif action == "return":
            row = merchant_return(services, _transaction(request, card), _amount(request.body))
        else:
            row = reverse_return(services, _transaction(request, card))
    return JSONResponse(ct.render(services, row))


def _route(action: str) -> Any:
    def handle(request: ApiRequest) -> Response:
        return _simulate(request, action)

    handle.__doc__ = f"``POST /sandbox/cards/{{cardId}}/simulate/{action}``"
    return api_route(
        f"/sandbox/cards/{{cardId}}/simulate/{action}", Operation("POST", handle, body=True)
    )


ACTIONS = ("authorization", "clearing", "reversal", "expiry", "return", "return_reversal")
ROUTES = [_route(action) for action in ACTIONS]
