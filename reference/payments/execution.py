"""Executing a quote (§3 Quote and transaction; SANDBOX.md, "Execute and
transactions"): the debit, settlement, failure and automatic refund, with their
``OUTGOING_PAYMENT.*`` events (§6).

One DB transaction (``BEGIN IMMEDIATE``) holds the status check, the debit, the quote
moving to ``PROCESSING``, the transaction moving to ``PROCESSING`` and the events, so
concurrent executes of one quote debit once. Sandbox transfers settle at once (§4 Sandbox
behaviours), in the same DB transaction: an internal destination is credited and the
transaction is ``COMPLETED``; an external destination's scenario may instead keep it
``PROCESSING`` (``005``) or fail it (``099``: ``FAILED``, ``PAYOUT_RETURNED``, the whole
debit credited back, ``refund`` pending then completed). Each step's event carries the
transaction as of that step with a strictly later timestamp than the step before. The
quote is ``COMPLETED`` once its transaction is final; a quote executed on creation
(``immediatelyExecute``) is ``COMPLETED`` as returned.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable

from reference.accounts import external_accounts, funding, internal_accounts, ledger
from reference.accounts import states as account_states
from reference.kernel.clock import later_than
from reference.kernel.errors import ApiError
from reference.kernel.seams import seam
from reference.kernel.services import Services
from reference.payments import authorization as sca
from reference.payments import (
    holds,
    limits,
    onchain,
    payout_scenarios,
    quote_store,
    rate_refusals,
    uma,
)
from reference.payments import transaction_store as txns
from reference.payments.quote_store import Quote
from reference.payments.transaction_store import Transaction

EVENT_PREFIX = "OUTGOING_PAYMENT."
PAYOUT_RETURNED = "PAYOUT_RETURNED"

# How an execute runs, given the quote's platform and id: (services, platform_id, quote_id).
Procedure = Callable[[Services, str, str], Quote]

PROCEDURE = seam(
    "execution.procedure",
    "the function POST /quotes/{quoteId}/execute runs, (services, platform_id, quote_id) ->"
    " the Quote answered: the status check and the debit in one DB transaction (no context)",
)
UNCHECKED_ANSWER = seam(
    "execution.unchecked_answer",
    "the Quote an execute answers before checking the quote, None to check and carry it out"
    " (context: services, quote; inside the execute's DB transaction)",
)
EXPIRED_REFUSAL = seam(
    "execution.expired_refusal",
    "the error refusing to execute a quote past expiresAt (400 QUOTE_EXPIRED), None to execute"
    " it anyway (context: quote)",
)
REPEAT_ANSWER = seam(
    "execution.repeat_answer",
    "the Quote answered, without carrying it out, to an execute of a quote no longer PENDING;"
    " None refuses it with 409 QUOTE_ALREADY_EXECUTED (context: services, quote; inside the"
    " execute's DB transaction)",
)
REFUND_ANNOUNCED = seam(
    "execution.refund_announced",
    "whether the automatic refund's steps send OUTGOING_PAYMENT.REFUND_PENDING and"
    " REFUND_COMPLETED (context: transaction, the failed transaction)",
)
REFUND_AMOUNT = seam(
    "execution.refund_amount",
    "the amount the automatic refund credits back to the source, the whole debit"
    " (context: transaction, the failed transaction)",
)
COMPLETED_FAILURE_REASON = seam(
    "execution.completed_failure_reason",
    "the failureReason stored on a transaction as it completes: None (context: transaction,"
    " the transaction before it completes)",
)


class _Steps:
    """Timestamps for one execution: each strictly after the one before."""

    def __init__(self, after: str) -> None:
        self._last = after

    def next(self) -> str:
        self._last = later_than(self._last)
        return self._last


def load_quote(services: Services, platform_id: str, quote_id: str) -> Quote:
    """The platform's quote ``quote_id``, or ``404 NOT_FOUND``."""
    quote = quote_store.load(services.db, platform_id, quote_id)
    if quote is None:
        raise ApiError(404, "NOT_FOUND", f"no quote {quote_id}")
    return quote


def transaction_of(services: Services, quote: Quote) -> Transaction:
    """The transaction created with ``quote``."""
    transaction = txns.load(services.db, quote.platform_id, quote.transaction_id)
    if transaction is None:  # created with the quote, in the same DB transaction
        raise LookupError(f"{quote.id} has no transaction {quote.transaction_id}")
    return transaction


def check_executable(services: Services, quote: Quote) -> Quote | None:
    """Raise unless ``quote`` may execute now; or the Quote to answer without carrying it
    out (None: carry it out)."""
    seams = services.settings.seams
    funding.refuse_execute(services, quote)  # just-in-time: paying it executes it (§4)
    expired = quote.status == quote_store.EXPIRED or (
        quote.status == quote_store.PENDING and quote.past_expiry()
    )
    if expired:
        refusal: ApiError | None = ApiError(
            400, "QUOTE_EXPIRED", f"{quote.id} expired at {quote.expires_at}; create a new one"
        )
        refusal = seams.apply(EXPIRED_REFUSAL, refusal, quote=quote)
        if refusal is not None:
            raise refusal
    elif quote.status != quote_store.PENDING:
        answer: Quote | None = seams.apply(REPEAT_ANSWER, None, services=services, quote=quote)
        if answer is not None:
            return answer
        raise ApiError(409, "QUOTE_ALREADY_EXECUTED", f"{quote.id} is {quote.status}")
    account_states.check_execution(services, quote)  # frozen, closed or failed since quoting
    _check_funds(services, quote)
    limits.check_execution(services, quote)
    return None


def _check_funds(services: Services, quote: Quote) -> None:
    if not funding.has_balance(services, quote.platform_id, quote.fields):
        return  # a pulled or just-in-time source: the money comes from outside
    needed = int(quote.fields["totalSendingAmount"])
    available = ledger.balances(services.db, quote.source_account_id).available
    if available < needed:
        raise ApiError(
            400,
            "INSUFFICIENT_FUNDS",
            f"{quote.source_account_id} has {available} available; the quote needs {needed}",
        )


def _announce(services: Services, transaction: Transaction, step: str) -> None:
    services.webhooks.enqueue_event(
        transaction.platform_id,
        EVENT_PREFIX + step,
        txns.render(transaction),
        timestamp=transaction.updated_at,
    )


def _refund(services: Services, transaction: Transaction, steps: _Steps) -> Transaction:
    """Credit the debit back to the source: refund pending, then completed."""
    seams = services.settings.seams
    reference = f"REFUND-{uuid.uuid4().hex[:12].upper()}"
    announce = seams.apply(REFUND_ANNOUNCED, True, transaction=transaction)
    pending = {"status": "PENDING", "reference": reference}
    transaction = txns.save(services.db, transaction, steps.next(), refund=pending)
    if announce:
        _announce(services, transaction, "REFUND_PENDING")
    amount = seams.apply(REFUND_AMOUNT, transaction.sent_amount, transaction=transaction)
    source = funding.ledger_source(services, transaction.platform_id, transaction.fields)
    if source is not None:  # else the money goes back outside, where it came from
        ledger.post(services.db, source, amount, ledger.REFUND, transaction.id)
    completed = {"status": "COMPLETED", "reference": reference}
    transaction = txns.save(services.db, transaction, steps.next(), refund=completed)
    if announce:
        _announce(services, transaction, "REFUND_COMPLETED")
    return transaction


def _settle(services: Services, quote: Quote, transaction: Transaction, steps: _Steps) -> str:
    """Settle at once by the destination's scenario; return the transaction's status."""
    db = services.db
    pulled = funding.pull_scenario(services, quote.platform_id, quote.fields)
    if pulled == external_accounts.TIMEOUT:
        return transaction.status  # a pull source ending in 005 times out (§4 Sandbox)
    if pulled == payout_scenarios.SLOW:
        return payout_scenarios.schedule(services, quote, transaction)  # 003: later
    pull_failure = payout_scenarios.pull_failure_reason(pulled)  # 099, 1xx: nothing pulled
    if pull_failure is not None:
        transaction = txns.save(
            db, transaction, steps.next(), status=txns.FAILED, failure_reason=pull_failure
        )
        _announce(services, transaction, txns.FAILED)
        return txns.FAILED
    destination = quote.destination_account_id
    internal = internal_accounts.load(db, quote.platform_id, destination)
    if internal is None:
        external = external_accounts.load_account(db, quote.platform_id, destination)
        scenario = uma.scenario(services, quote.fields)  # "" unless a UMA address
        if external is not None:
            scenario = external.scenario
        if scenario == external_accounts.TIMEOUT:
            return transaction.status
        if scenario == holds.HELD:
            return holds.hold(db, services.settings, transaction)
        if scenario == payout_scenarios.SLOW:
            return payout_scenarios.schedule(services, quote, transaction)  # 003: later
        failure = payout_scenarios.failure_reason(scenario)  # 099 returned, 1xx no match
        if failure is not None:
            transaction = txns.save(
                db, transaction, steps.next(), status=txns.FAILED, failure_reason=failure
            )
            _announce(services, transaction, txns.FAILED)
            _refund(services, transaction, steps)
            return txns.FAILED
    else:
        ledger.post(db, internal.id, transaction.received_amount, ledger.CREDIT, transaction.id)
    transaction = onchain.settled(services, quote, transaction)  # wallet and UMA hashes
    stamp = steps.next()
    reason: str | None = services.settings.seams.apply(
        COMPLETED_FAILURE_REASON, None, transaction=transaction
    )
    transaction = txns.save(
        db, transaction, stamp, status=txns.COMPLETED, settled_at=stamp, failure_reason=reason
    )
    _announce(services, transaction, txns.COMPLETED)
    return txns.COMPLETED


def _carry_out(services: Services, quote: Quote, *, immediate: bool) -> Quote:
    """Debit, move to ``PROCESSING``, settle; return the quote as the caller answers it."""
    db = services.db
    account_states.check_execution(services, quote)  # also after SCA or a just-in-time deposit
    transaction = transaction_of(services, quote)
    steps = _Steps(max(transaction.updated_at, quote.updated_at))
    source = funding.ledger_source(services, quote.platform_id, quote.fields)
    if source is not None:  # a pulled or just-in-time source: the money comes from outside
        ledger.post(db, source, -transaction.sent_amount, ledger.DEBIT, transaction.id)
    stamp = steps.next()
    answered = quote_store.set_status(db, quote, quote_store.PROCESSING, stamp)
    transaction = txns.save(db, transaction, stamp, status=txns.PROCESSING)
    _announce(services, transaction, txns.PROCESSING)
    status = _settle(services, answered, transaction, steps)
    if immediate or status in txns.FINAL:
        completed = quote_store.set_status(db, answered, quote_store.COMPLETED, steps.next())
        if immediate:
            return completed
    return answered


def execute(services: Services, platform_id: str, quote_id: str) -> Quote:
    """``POST /quotes/{quoteId}/execute``: the quote as answered (``PROCESSING``)."""
    rate_refusals.refuse_if_marked(services, platform_id, quote_id)
    procedure: Procedure = services.settings.seams.apply(PROCEDURE, _execute_at_once)
    return procedure(services, platform_id, quote_id)


def _execute_at_once(services: Services, platform_id: str, quote_id: str) -> Quote:
    """Check and carry out the quote in one DB transaction, so concurrent executes of one
    quote debit once."""
    with services.db.transaction():
        sca.expire_due(services, platform_id)
        quote = load_quote(services, platform_id, quote_id)
        unchecked: Quote | None = services.settings.seams.apply(
            UNCHECKED_ANSWER, None, services=services, quote=quote
        )
        if unchecked is not None:
            return unchecked
        released = sca.on_repeat_execute(services, quote)  # 409 while awaiting authorization
        if released is not None:
            return _carry_out(services, released, immediate=False)
        answer = check_executable(services, quote)
        if answer is not None:
            return answer
        challenged = sca.challenge_on_execute(services, quote)  # SCA: PENDING_AUTHORIZATION
        if challenged is not None:
            return challenged
        return _carry_out(services, quote, immediate=False)


def execute_on_creation(services: Services, quote: Quote) -> Quote:
    """``immediatelyExecute``: run inside the creating DB transaction; ``COMPLETED`` (or
    ``PENDING_AUTHORIZATION`` when the customer needs SCA)."""
    _check_funds(services, quote)
    challenged = sca.challenge_on_execute(services, quote)
    if challenged is not None:
        return challenged
    return _carry_out(services, quote, immediate=True)


def release(services: Services, quote: Quote) -> Quote:
    """Carry out a quote released without the execute endpoint, as execute does: an SCA
    quote whose last challenge was authorized, or a just-in-time quote whose payment
    arrived. Call inside the DB transaction that released it."""
    return _carry_out(services, quote, immediate=False)
