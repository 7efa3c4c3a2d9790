"""How the suite walks the refund of a returned incoming deposit (§2 Transaction: incoming
payments exist; §3 Quote and transaction and §6 Events: ``INCOMING_PAYMENT.REFUND_PENDING``
then ``.REFUND_COMPLETED`` or ``.REFUND_FAILED``).

Neither an incoming-payment simulator nor a return trigger is shown: the adapter hook
``pytest_conformance_return_incoming_payment`` makes a deposit arrive at an internal
account and be returned, and answers the incoming Transaction.
"""

from __future__ import annotations

from typing import Any

from conformance.contract import clauses
from conformance.contract.failures import check
from conformance.ground import hookspecs
from conformance.ground.hookspecs import HookCaller
from conformance.webhooks.resource_events import ResourceEvents
from conformance.webhooks.sink import Delivery

__all__ = ["PREFIX", "RETURN_HOOK", "STEPS", "refund_events", "returned_deposit"]

RETURN_HOOK = hookspecs.pytest_conformance_return_incoming_payment
PREFIX = "INCOMING_PAYMENT."
PENDING = PREFIX + "REFUND_PENDING"
COMPLETED = PREFIX + "REFUND_COMPLETED"
FAILED = PREFIX + "REFUND_FAILED"
STEPS = (PENDING, COMPLETED, FAILED)  # the walk's order (COMPLETED or FAILED ends it)
CLAUSE = clauses.QUOTE_AND_TRANSACTION_STATES
REFUND_REQUIREMENT = "REFUND-INCOMING-EVENTS"  # a wait for its events that runs out: here


def returned_deposit(adapter: HookCaller, account_id: str, amount: int) -> dict[str, Any]:
    """A USD deposit of ``amount`` that arrives at ``account_id`` and is returned; the
    incoming Transaction as the adapter answers it."""
    __tracebackhide__ = True
    found = adapter.call(RETURN_HOOK, account_id=account_id, amount=amount, currency="USD")
    transaction = dict(found)
    check(
        isinstance(transaction.get("id"), str),
        clauses.TRANSACTION,
        "a returned incoming deposit is a Transaction with an id",
        observed=transaction,
        hint=f"the adapter hook {RETURN_HOOK.__name__} answers the incoming Transaction",
    )
    return transaction


def refund_events(events: ResourceEvents, transaction_id: str) -> list[Delivery]:
    """``REFUND_PENDING`` then ``REFUND_COMPLETED`` or ``REFUND_FAILED`` about it."""
    __tracebackhide__ = True
    return events.wait(
        transaction_id,
        [PENDING, (COMPLETED, FAILED)],
        prefix=PREFIX,
        why="a returned incoming deposit is refunded: it",
        clause=CLAUSE,
        about="a returned incoming deposit",
        requirement=REFUND_REQUIREMENT,
    )
