"""An incoming UMA payment (§4 sandbox: the path of its simulator is not shown; ours is
``POST /sandbox/uma/incoming-payments {accountId, amount, senderUmaAddress?}``; ARCHITECTURE.md,
"Just-in-time funding, pull sources, UMA and on-chain transfers").

The payment arrives in the customer's ``ACTIVE`` internal account in that account's
currency: one ``INCOMING`` / ``CREDIT`` transaction, ``COMPLETED``, whose ``source`` is the
sender's UMA address, and the account credited, in one DB transaction. The answer is the
Transaction (``201``).
"""

from __future__ import annotations

import uuid
from typing import Any

from starlette.responses import JSONResponse, Response

from reference import account_states, currencies, internal_accounts, ledger
from reference import transaction_store as txns
from reference.accounts_api import MAX_FUNDING
from reference.clock import iso, utc_now
from reference.errors import ApiError
from reference.field_checks import text
from reference.routing import ApiRequest, Operation, api_route
from reference.transaction_store import Transaction
from reference.uma import ADDRESS_FIELD, UMA_ADDRESS
from reference.validation import Problems

UMA_DEPOSIT = "UMA_INCOMING"  # ledger kind
DEFAULT_SENDER = "$sender@vasp.sandbox.example"


def _transaction(
    account: internal_accounts.InternalAccount, amount: int, sender: str
) -> Transaction:
    now = iso(utc_now())
    money = {"amount": amount, "currency": currencies.CURRENCIES[account.currency].as_json()}
    fields: dict[str, Any] = {
        "type": "INCOMING",
        "direction": "CREDIT",
        "customerId": account.customer_id,
        "source": {"sourceType": UMA_ADDRESS, ADDRESS_FIELD: sender},
        "destination": {"destinationType": "ACCOUNT", "accountId": account.id},
        "sentAmount": money,
        "receivedAmount": money,
        "description": f"UMA payment from {sender}",
    }
    return Transaction(
        id=f"Transaction:{uuid.uuid4()}",
        platform_id=account.platform_id,
        customer_id=account.customer_id,
        quote_id="",
        fields=fields,
        status=txns.COMPLETED,
        failure_reason=None,
        refund=None,
        settled_at=now,
        created_at=now,
        updated_at=now,
    )


def incoming_payment(request: ApiRequest) -> Response:
    """``POST /sandbox/uma/incoming-payments`` → 201 the incoming Transaction."""
    services = request.services
    db = services.db
    problems = Problems()
    account_id = problems.required(request.body, "accountId", "")
    if account_id is not None:
        account_id = text(problems, "accountId", account_id)
    amount = problems.required(request.body, "amount", "")
    if amount is not None:
        amount = problems.integer("amount", amount, minimum=1, maximum=MAX_FUNDING)
    sender = request.body.get("senderUmaAddress", DEFAULT_SENDER)
    problems.string("senderUmaAddress", sender)
    problems.raise_if_any()
    assert isinstance(amount, int)
    with db.transaction():
        account = internal_accounts.load(db, request.platform.id, str(account_id))
        if account is None:
            raise ApiError(404, "NOT_FOUND", f"no internal account {account_id}")
        receives = account_states.receives(services.settings, account.status)
        if not receives or account.customer_id is None:
            raise ApiError(
                409, "ACCOUNT_CANNOT_RECEIVE", f"{account.id} cannot receive a UMA payment"
            )
        transaction = _transaction(account, amount, str(sender))
        if services.settings.has_fault("uma-incoming-no-transaction"):
            ledger.post(db, account.id, amount, UMA_DEPOSIT)  # credited, but no transaction
        else:
            txns.insert(db, transaction)
            ledger.post(db, account.id, amount, UMA_DEPOSIT, transaction.id)
    return JSONResponse(txns.render(transaction), status_code=201)


ROUTES = [
    api_route("/sandbox/uma/incoming-payments", Operation("POST", incoming_payment, body=True)),
]
