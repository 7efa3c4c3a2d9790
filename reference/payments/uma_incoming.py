"""An incoming UMA payment (§4 sandbox: the path of its simulator is not shown; ours is
``POST /sandbox/uma/incoming-payments {accountId, amount, senderUmaAddress?}``; SANDBOX.md,
"Just-in-time funding, pull sources, UMA and on-chain transfers").

The payment arrives in the customer's ``ACTIVE`` internal account in that account's
currency: one ``INCOMING`` / ``CREDIT`` transaction, ``COMPLETED``, whose ``source`` is the
sender's UMA address, and the account credited, in one DB transaction. The answer is the
Transaction (``201``).
"""

from __future__ import annotations

from starlette.responses import JSONResponse, Response

from reference.accounts import ledger
from reference.accounts import states as account_states
from reference.accounts.api import read_amount
from reference.kernel.errors import ApiError
from reference.kernel.field_checks import text
from reference.kernel.routing import ApiRequest, Operation, api_route
from reference.kernel.seams import seam
from reference.kernel.validation import Problems
from reference.payments import transaction_store as txns
from reference.payments.incoming import completed_incoming
from reference.payments.transaction_store import Transaction
from reference.payments.uma import ADDRESS_FIELD, UMA_ADDRESS

UMA_DEPOSIT = "UMA_INCOMING"  # ledger kind
DEFAULT_SENDER = "$sender@vasp.sandbox.example"

STORED_TRANSACTION = seam(
    "uma.incoming_transaction",
    "the incoming Transaction stored for a UMA payment as its account is credited, or None"
    " to store none (context: account)",
)


def incoming_payment(request: ApiRequest) -> Response:
    """``POST /sandbox/uma/incoming-payments`` → 201 the incoming Transaction."""
    services = request.services
    db = services.db
    problems = Problems()
    account_id = problems.required(request.body, "accountId", "")
    if account_id is not None:
        account_id = text(problems, "accountId", account_id)
    amount = read_amount(request.body, problems)
    sender = request.body.get("senderUmaAddress", DEFAULT_SENDER)
    problems.string("senderUmaAddress", sender)
    problems.raise_if_any()
    with db.transaction():
        account = account_states.receiving_account(services, request.platform.id, str(account_id))
        if account.customer_id is None:
            raise ApiError(
                409, "ACCOUNT_CANNOT_RECEIVE", f"{account.id} is the platform's own account"
            )
        source = {"sourceType": UMA_ADDRESS, ADDRESS_FIELD: str(sender)}
        transaction = completed_incoming(account, amount, f"UMA payment from {sender}", source)
        stored: Transaction | None = services.settings.seams.apply(
            STORED_TRANSACTION, transaction, account=account
        )
        if stored is not None:
            txns.insert(db, stored)
        ledger.post(db, account.id, amount, UMA_DEPOSIT, None if stored is None else stored.id)
    return JSONResponse(txns.render(transaction), status_code=201)


ROUTES = [
    api_route("/sandbox/uma/incoming-payments", Operation("POST", incoming_payment, body=True)),
]
