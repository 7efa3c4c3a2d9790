"""Fault modes that break a money-movement rule the way a real server was seen to break it.

Each one is narrower than the blunt fault beside it (``jit-quote-executable``,
``sca-non-sca-endpoint-200``): the server behaves correctly on the path an older check
looked at and wrongly on another, so the suite must look at every path the interface
states. Without its fault each function changes nothing.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from reference.accounts import funding
from reference.payments import quote_store
from reference.payments import transaction_store as txns
from reference.payments.quote_store import Quote
from reference.server.clock import later_than
from reference.server.services import Services
from reference.server.settings import ServerSettings

STALE_FAILURE_REASON = "PAYOUT_RETURNED"
# Statuses of card transactions (§2 CardTransaction) a broken server applies to type=CARD.
CARD_STATUSES = frozenset({"SETTLED", "DECLINED", "VOIDED", "EXCEPTION"})


def completed_failure_reason(settings: ServerSettings) -> str | None:
    """`completed-failure-reason`: the failureReason a transaction keeps when it completes
    (stored, so every read path shows it: GET, list, events)."""
    return STALE_FAILURE_REASON if settings.has_fault("completed-failure-reason") else None


def quote_answer(settings: ServerSettings, body: dict[str, Any]) -> dict[str, Any]:
    """`jit-instructions-missing-non-usd`: a just-in-time quote funded in another currency
    than USD is answered with an empty ``paymentInstructions``."""
    source = body.get("source") or {}
    if (
        settings.has_fault("jit-instructions-missing-non-usd")
        and funding.is_realtime(body)
        and source.get("currency") != "USD"
    ):
        return {**body, "paymentInstructions": []}
    return body


def execute_just_in_time(services: Services, quote: Quote) -> Quote | None:
    """`jit-execute-starts-transfer`: execute on a ``PENDING`` just-in-time quote starts
    its transfer (transaction ``PROCESSING``, ``OUTGOING_PAYMENT.PROCESSING``) and answers
    the quote ``PROCESSING``, while the stored quote stays ``PENDING`` for its funds. None
    when the fault is off or the quote is not such a quote. Call inside the DB transaction."""
    if not (
        services.settings.has_fault("jit-execute-starts-transfer")
        and funding.is_realtime(quote.fields)
        and quote.status == quote_store.PENDING
    ):
        return None
    transaction = txns.load(services.db, quote.platform_id, quote.transaction_id)
    if transaction is None:
        return None
    stamp = later_than(max(transaction.updated_at, quote.updated_at))
    transaction = txns.save(services.db, transaction, stamp, status=txns.PROCESSING)
    services.webhooks.enqueue_event(
        transaction.platform_id,
        "OUTGOING_PAYMENT." + txns.PROCESSING,
        txns.render(transaction),
        timestamp=stamp,
    )
    return replace(quote, status=quote_store.PROCESSING, updated_at=stamp)


def card_status_listed(settings: ServerSettings, status: str | None, kind: str | None) -> bool:
    """`card-status-filter-card-statuses`: ``status`` with ``type=CARD`` is listed (200)
    when the status is a card transaction's; payment statuses still answer 400."""
    return (
        settings.has_fault("card-status-filter-card-statuses")
        and kind == "CARD"
        and status in CARD_STATUSES
    )


def authorize_releases(settings: ServerSettings, quote: Quote) -> bool:
    """`sca-non-sca-authorize-executes`: authorize on a ``PENDING`` quote of a customer
    outside SCA releases it (200, executed); other quotes still answer 409."""
    return (
        settings.has_fault("sca-non-sca-authorize-executes") and quote.status == quote_store.PENDING
    )
