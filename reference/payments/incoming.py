"""Incoming payments and the refund of a returned incoming deposit (§2 Transaction, §3 Quote
and transaction, §6 ``INCOMING_PAYMENT.REFUND_*``); SANDBOX.md, "Rule-based accounts,
ownership verification, payout scenarios and incoming payments".

``POST /sandbox/internal-accounts/{accountId}/returned-deposit {amount}`` simulates a
deposit that arrives and is then returned to its sender, in one DB transaction:

1. an ``INCOMING`` / ``CREDIT`` transaction is stored ``COMPLETED`` and the account is
   credited (ledger kind ``INCOMING``);
2. the return: ``refund`` ``PENDING`` with ``INCOMING_PAYMENT.REFUND_PENDING``, the amount
   debited back (``INCOMING_RETURN``), ``refund`` ``COMPLETED`` with
   ``INCOMING_PAYMENT.REFUND_COMPLETED``. The transaction stays ``COMPLETED``.

Each step's event carries the transaction as of that step, with a strictly later
timestamp. A returned deposit is never swept (the return happens before any rule runs).
Plain sandbox funding creates no transaction.
"""

from __future__ import annotations

import uuid
from typing import Any

from starlette.responses import JSONResponse, Response

from reference.accounts import internal_accounts, ledger
from reference.accounts import states as account_states
from reference.accounts.api import read_amount
from reference.kernel import currencies
from reference.kernel.clock import iso, later_than, utc_now
from reference.kernel.routing import ApiRequest, Operation, api_route
from reference.kernel.seams import seam
from reference.kernel.services import Services
from reference.payments import transaction_store as txns
from reference.payments.transaction_store import Transaction

INCOMING = "INCOMING"
CREDIT = "CREDIT"
EVENT_PREFIX = "INCOMING_PAYMENT."
DEPOSIT = "INCOMING"  # ledger kind: the deposit credited
RETURN = "INCOMING_RETURN"  # ledger kind: the deposit sent back

REFUND_EVENT = seam(
    "incoming.refund_event",
    "the INCOMING_PAYMENT.REFUND_* event type about to be sent for a returned deposit's"
    " refund step, or None to send none (context: transaction, as of that step)",
)


def _announce(services: Services, transaction: Transaction, step: str) -> None:
    event_type: str | None = services.settings.seams.apply(
        REFUND_EVENT, EVENT_PREFIX + step, transaction=transaction
    )
    if event_type is None:
        return
    services.webhooks.enqueue_event(
        transaction.platform_id,
        event_type,
        txns.render(transaction),
        timestamp=transaction.updated_at,
    )


def completed_incoming(
    account: internal_accounts.InternalAccount,
    amount: int,
    description: str,
    source: dict[str, Any] | None = None,
) -> Transaction:
    """A ``COMPLETED`` ``INCOMING`` / ``CREDIT`` transaction of ``amount`` into ``account``
    (in its currency), not yet stored; ``source`` names the sender when known."""
    now = iso(utc_now())
    money = {"amount": amount, "currency": currencies.CURRENCIES[account.currency].as_json()}
    fields: dict[str, Any] = {
        "type": INCOMING,
        "direction": CREDIT,
        "customerId": account.customer_id,
        **({"source": source} if source is not None else {}),
        "destination": {"destinationType": "ACCOUNT", "accountId": account.id},
        "sentAmount": money,
        "receivedAmount": money,
        "description": description,
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


def _deposit(
    services: Services, account: internal_accounts.InternalAccount, amount: int
) -> Transaction:
    transaction = completed_incoming(account, amount, "sandbox deposit, returned to its sender")
    txns.insert(services.db, transaction)
    ledger.post(services.db, account.id, amount, DEPOSIT, transaction.id)
    return transaction


def _return(services: Services, transaction: Transaction, account_id: str) -> Transaction:
    db = services.db
    reference = f"RETURN-{uuid.uuid4().hex[:12].upper()}"
    pending = {"status": "PENDING", "reference": reference}
    stamp = later_than(transaction.updated_at)
    transaction = txns.save(db, transaction, stamp, refund=pending)
    _announce(services, transaction, "REFUND_PENDING")
    ledger.post(db, account_id, -transaction.received_amount, RETURN, transaction.id)
    completed = {"status": "COMPLETED", "reference": reference}
    transaction = txns.save(db, transaction, later_than(stamp), refund=completed)
    _announce(services, transaction, "REFUND_COMPLETED")
    return transaction


def returned_deposit(request: ApiRequest) -> Response:
    """``POST /sandbox/internal-accounts/{accountId}/returned-deposit {amount}`` → the
    incoming Transaction, its refund completed."""
    services = request.services
    amount = read_amount(request.body)
    account_id = request.path_params["accountId"]
    with services.db.transaction():
        account = account_states.receiving_account(services, request.platform.id, account_id)
        transaction = _return(services, _deposit(services, account, amount), account.id)
    return JSONResponse(txns.render(transaction))


ROUTES = [
    api_route(
        "/sandbox/internal-accounts/{accountId}/returned-deposit",
        Operation("POST", returned_deposit, body=True),
    ),
]
