"""How the suite reads transactions (§2 Transaction, §4 GET /transactions) and waits for
them to settle (§3 Quote and transaction, §4 Sandbox behaviours).

The interface shows ``GET /transactions`` with the filters ``cardId``, ``status`` and
``type`` ("include"); reading one transaction back is not shown, so the suite lists the
customer's transactions and picks by id. ``customerId`` is not a stated filter: it is sent,
and the list is filtered here too, for a target that ignores it. Every page is read when
the profile says how the target pages (``exchange/list_pages.py``); otherwise a transaction
not on the first page skips the test, never fails it. Sandbox transfers settle at once,
but the interface gives no time, so waits are bounded by the profile's ``webhook_timeout``.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import pytest

from conformance.contract import clauses
from conformance.contract.failures import ConformanceFailure, fail
from conformance.exchange.client import TargetClient
from conformance.exchange.list_pages import Listing, Pagination, read_list, skip_unlisted
from conformance.ground.profile import TargetProfile
from conformance.ground.progress import QUIET_S, WaitProgress
from conformance.payments.external_accounts import ORDINARY_SUFFIX

__all__ = ["TransactionHistory", "amount_of", "is_final", "refund_outcome"]

QUOTES_CLAUSE = clauses.QUOTES_ENDPOINTS
TRANSITION_CLAUSE = clauses.QUOTE_AND_TRANSACTION_STATES
# §2 Transaction: the statuses the interface states
TRANSACTION_STATUSES = ("PENDING", "PROCESSING", "COMPLETED", "FAILED", "EXPIRED")
TRANSACTION_CLAUSE = clauses.TRANSACTION
# §4 Sandbox behaviours: "every transfer settles at once, in success or failure"
SETTLEMENT_REQUIREMENT = "SANDBOX-INSTANT-SETTLEMENT"
REFUND_DONE = ("COMPLETED", "SUCCEEDED", "SETTLED", "REFUNDED")
REFUND_FAILED = ("FAILED",)


def amount_of(value: Any) -> int | None:
    """An amount given as an integer or as ``{amount, currency}``; None otherwise."""
    if isinstance(value, Mapping):
        value = value.get("amount")
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    return None


def refund_outcome(transaction: Mapping[str, Any], status_name: str) -> str | None:
    """``COMPLETED``, ``FAILED`` or ``PENDING`` from a transaction's ``refund`` object.

    §2 Transaction: the refund object tracks status and reference; its status values are
    not shown, so any value ending in a completed word counts as completed.
    """
    refund = transaction.get("refund")
    if not isinstance(refund, Mapping):
        return None
    status = str(refund.get(status_name) or "").upper()
    if not status:
        return "PENDING"
    if status.endswith(REFUND_DONE):
        return "COMPLETED"
    if status.endswith(REFUND_FAILED):
        return "FAILED"
    return "PENDING"


def is_final(transaction: Mapping[str, Any], status_name: str) -> bool:
    """Settled for the money it moves: COMPLETED or EXPIRED, or FAILED with a final refund."""
    status = transaction.get("status")
    if status in ("COMPLETED", "EXPIRED"):
        return True
    return status == "FAILED" and refund_outcome(transaction, status_name) in (
        "COMPLETED",
        "FAILED",
    )


class TransactionHistory:
    """Reads and waits for transactions for one test session."""

    def __init__(self, client: TargetClient, profile: TargetProfile) -> None:
        self.client = client
        self.profile = profile

    def transactions(self, customer_id: str, **filters: str) -> list[dict[str, Any]]:
        """GET /transactions?customerId=<id>&... : the customer's transactions.

        The interface shows the filters ``cardId``, ``status`` and ``type`` ("include"); a
        target that ignores ``customerId`` is filtered here.
        """
        __tracebackhide__ = True
        return self.listing(customer_id, **filters).items

    def listing(self, customer_id: str, **filters: str) -> Listing:
        """The customer's transactions, and whether they are the whole list (every page)."""
        __tracebackhide__ = True
        listing = read_list(
            self.client,
            "/transactions",
            {"customerId": customer_id, **filters},
            Pagination.of(self.profile.pagination),
            clause=QUOTES_CLAUSE + " — GET /transactions",
            statement="GET /transactions returns the platform's transactions",
            unstated=("customerId",),  # §4 names cardId, status and type only
        )
        listing.items = [i for i in listing.items if i.get("customerId") in (customer_id, None)]
        return listing

    def transaction(self, customer_id: str, transaction_id: str) -> dict[str, Any] | None:
        """The transaction with this id among the customer's, or None."""
        found = [t for t in self.transactions(customer_id) if t.get("id") == transaction_id]
        return found[0] if found else None

    def wait_for_transaction(
        self,
        customer_id: str,
        transaction_id: str,
        until: Callable[[Mapping[str, Any]], bool],
        *,
        why: str,
        charged_to: str | None = None,
        waited_for: str | None = None,
    ) -> dict[str, Any]:
        """Poll the transaction until ``until`` holds, within the profile's webhook timeout.

        Sandbox transfers settle at once (§4 Sandbox behaviours) but the interface gives no
        time, so the deadline is ``webhook_timeout``. Fails naming ``why`` on timeout.
        """
        __tracebackhide__ = True
        found = self.wait_for_transactions(
            customer_id, [transaction_id], until, why=why, charged_to=charged_to,
            waited_for=waited_for,
        )  # fmt: skip
        return found[transaction_id]

    def wait_for_transactions(
        self,
        customer_id: str,
        transaction_ids: Sequence[str],
        until: Callable[[Mapping[str, Any]], bool],
        *,
        why: str,
        charged_to: str | None = None,
        waited_for: str | None = None,
    ) -> dict[str, dict[str, Any]]:
        """Poll the customer's transactions until ``until`` holds for each of the ids; the
        customer's transactions by id as that last poll listed them (the awaited ones among
        them: a caller that wants the whole history then needs no second request). Bounded
        by the profile's ``webhook_timeout``, and failing at once when what it waits for can
        no longer happen: a status outside the interface's set, or a final state (COMPLETED,
        EXPIRED, FAILED with a final refund) that is not awaited. A wait that runs out is
        charged to ``charged_to``; with ``waited_for`` (what every such wait awaits, in
        words) later waits for the same thing end at once (``exchange/waits.py``)."""
        __tracebackhide__ = True
        known = self.client.state.ran_out.known(waited_for) if waited_for else None
        if known is not None:  # an earlier test waited it out: this one ends at once
            raise known
        deadline = time.monotonic() + self.profile.webhook_timeout
        pause = 0.02
        status_name = self.profile.field_name("refund_status")
        progress = WaitProgress(why, self.profile.webhook_timeout, quiet_s=QUIET_S)
        while True:
            listing = self.listing(customer_id)
            listed = {t.get("id"): t for t in listing.items}
            waiting = [i for i in transaction_ids if i not in listed or not until(listed[i])]
            if not waiting:
                progress.done()
                return {i: t for i, t in listed.items() if isinstance(i, str)}
            for i in waiting:
                if i in listed:
                    _fail_if_it_cannot_happen(listed[i], status_name, why)
            if time.monotonic() >= deadline:
                unlisted = [i for i in waiting if i not in listed]
                if unlisted and not listing.complete:
                    skip_unlisted(listing, f"transaction {unlisted[0]}")
                break
            progress.tick(deadline - time.monotonic())
            time.sleep(min(pause, max(deadline - time.monotonic(), 0)))
            pause = min(pause * 2, 0.5)
        failure = ConformanceFailure(
            TRANSITION_CLAUSE,
            why,
            observed=[
                _transaction_summary(listed[i], status_name)
                if i in listed
                else f"transaction {i} is not listed by GET /transactions"
                for i in waiting
            ],
            hint=f"waited {self.profile.webhook_timeout:g} s (the profile's webhook_timeout)",
        )
        if charged_to:
            failure.charged_to = charged_to
            failure.cause = f"{waited_for or 'a transaction'} never happened: {why}"
            if waited_for:
                self.client.state.ran_out.record(waited_for, failure)
        raise failure

    def settled(
        self, customer_id: str, transaction_id: str, *, waited_for: str | None = None
    ) -> dict[str, Any]:
        """Wait until the transaction is settled (COMPLETED, or FAILED with a final refund);
        ``waited_for`` names a kind of transfer whose settling, once it ran out, is not
        waited for again (a target that never settles an ordinary payout)."""
        status_name = self.profile.field_name("refund_status")
        return self.wait_for_transaction(
            customer_id,
            transaction_id,
            lambda t: is_final(t, status_name),
            why="in the sandbox every transfer settles at once, in success or failure; a "
            "failed one is refunded automatically (§4 Sandbox behaviours, §3)",
            charged_to=SETTLEMENT_REQUIREMENT,
            waited_for=waited_for,
        )

    def completed(self, customer_id: str, transaction_id: str) -> dict[str, Any]:
        """The settled transaction, which must have COMPLETED; skips if the payout failed.

        The outcome of an ordinary identifier suffix is not shown, so a target that fails
        it cannot be faulted here.
        """
        ordinary = f"a payout to an identifier ending in {ORDINARY_SUFFIX} to settle"
        transaction = self.settled(customer_id, transaction_id, waited_for=ordinary)
        if transaction.get("status") != "COMPLETED":
            pytest.skip(
                f"a payout to an identifier ending in {ORDINARY_SUFFIX} ended "
                f"{transaction.get('status')} ({transaction.get('failureReason')}); the outcome "
                "of that suffix is not shown (§4 Sandbox behaviours)"
            )
        return transaction


def _fail_if_it_cannot_happen(transaction: Mapping[str, Any], status_name: str, why: str) -> None:
    """Fail now when a transaction can no longer reach what is awaited."""
    __tracebackhide__ = True
    status = transaction.get("status")
    if status not in TRANSACTION_STATUSES:
        fail(
            TRANSACTION_CLAUSE,
            f"a transaction's status is one of {', '.join(TRANSACTION_STATUSES)}",
            observed=_transaction_summary(transaction, status_name),
            hint=f"the suite was waiting for this: {why}",
        )
    if is_final(transaction, status_name):
        fail(
            TRANSITION_CLAUSE,
            why,
            observed=_transaction_summary(transaction, status_name),
            hint="the transaction is in a final state, so what was awaited can no longer happen",
        )


def _transaction_summary(transaction: Mapping[str, Any], status_name: str) -> dict[str, Any]:
    return {
        "id": transaction.get("id"),
        "status": transaction.get("status"),
        "failureReason": transaction.get("failureReason"),
        "refund": transaction.get("refund"),
        "refund outcome": refund_outcome(transaction, status_name),
    }
