"""Payout scenarios beyond settle-at-once (§4 Sandbox behaviours: 003 slow payment, 1xx
beneficiary-name verification outcomes); SANDBOX.md, "Rule-based accounts, ownership
verification, payout scenarios and incoming payments".

- ``003`` slow: execution leaves the transaction ``PROCESSING``; ``SLOW_S`` seconds later
  the ``SlowSettler`` thread completes it (``COMPLETED``, ``settledAt``,
  ``OUTGOING_PAYMENT.COMPLETED``, the quote ``COMPLETED``), in one DB transaction.
- ``1xx`` beneficiary-name verification: ``100`` (match) and ``101`` (close match) settle
  like any payout; every other ``1xx`` (no match, e.g. ``102``) fails with
  ``ACCOUNT_INVALID`` and is refunded automatically, like a returned payout.
- The same digits on a pull source (§4: "whenever the account is a pull source or payout
  destination"): ``003`` slow (the internal destination is credited when it completes),
  ``099`` fails with ``QUOTE_EXECUTION_FAILED`` and a ``1xx`` no-match with
  ``ACCOUNT_INVALID``; nothing was debited from the ledger, so no refund follows.
"""

from __future__ import annotations

import logging
import threading
from datetime import timedelta

from reference.accounts import internal_accounts, ledger
from reference.kernel.clock import iso, later_than, utc_now
from reference.kernel.seams import seam
from reference.kernel.services import Services
from reference.payments import onchain, quote_store
from reference.payments import transaction_store as txns
from reference.payments.quote_store import Quote
from reference.payments.transaction_store import Transaction

SLOW = "003"
SLOW_S = 1.0  # how long a slow payment stays PROCESSING (our choice)
POLL_S = 0.2  # how often the settler looks for due payments
NAME_MATCHES = frozenset({"100", "101"})  # 1xx outcomes that settle (our choice)
ACCOUNT_INVALID = "ACCOUNT_INVALID"
PAYOUT_RETURNED = "PAYOUT_RETURNED"
RETURNED = "099"
PULL_RETURNED = "QUOTE_EXECUTION_FAILED"  # a pull source ending in 099 (our choice)

_log = logging.getLogger(__name__)

DUE_SLOW_PAYMENTS = seam(
    "payouts.due_slow_payments",
    "the slow_settlements rows whose time has come, oldest first, about to be completed"
    " (no context)",
)


def failure_reason(scenario: str) -> str | None:
    """The failure a payout to this scenario ends in, or None when it settles."""
    if scenario == RETURNED:
        return PAYOUT_RETURNED
    if len(scenario) == 3 and scenario.startswith("1") and scenario not in NAME_MATCHES:
        return ACCOUNT_INVALID  # beneficiary name does not match
    return None


def pull_failure_reason(scenario: str) -> str | None:
    """The failure a pull from a source with this scenario ends in, or None when the money
    arrives: ``099`` (the pull is returned) is ``QUOTE_EXECUTION_FAILED``, a ``1xx``
    no-match ``ACCOUNT_INVALID`` (our choices; nothing was debited, so nothing is refunded)."""
    failure = failure_reason(scenario)
    return PULL_RETURNED if failure == PAYOUT_RETURNED else failure


def schedule(services: Services, quote: Quote, transaction: Transaction) -> str:
    """Leave a slow payment ``PROCESSING`` and have the settler complete it later; call
    inside the executing DB transaction. Returns the transaction's status."""
    due = iso(utc_now() + timedelta(seconds=SLOW_S))
    services.db.execute(
        """INSERT OR REPLACE INTO slow_settlements (transaction_id, platform_id, quote_id,
           due_at) VALUES (?, ?, ?, ?)""",
        (transaction.id, transaction.platform_id, quote.id, due),
    )
    return transaction.status


def settle_due(services: Services) -> int:
    """Complete every slow payment whose time has come; how many were completed."""
    db = services.db
    done = 0
    with db.transaction():
        rows = services.settings.seams.apply(
            DUE_SLOW_PAYMENTS,
            db.fetchall(
                "SELECT * FROM slow_settlements WHERE due_at <= ? ORDER BY due_at",
                (iso(utc_now()),),
            ),
        )
        for row in rows:
            db.execute(
                "DELETE FROM slow_settlements WHERE transaction_id = ?", (row["transaction_id"],)
            )
            transaction = txns.load(db, row["platform_id"], row["transaction_id"])
            quote = quote_store.load(db, row["platform_id"], row["quote_id"])
            if transaction is None or quote is None or transaction.status != txns.PROCESSING:
                continue
            _credit_internal(services, quote, transaction)  # a slow pull into an account
            transaction = onchain.settled(services, quote, transaction)
            stamp = later_than(max(transaction.updated_at, quote.updated_at))
            transaction = txns.save(db, transaction, stamp, status=txns.COMPLETED, settled_at=stamp)
            services.webhooks.enqueue_event(
                transaction.platform_id,
                "OUTGOING_PAYMENT." + txns.COMPLETED,
                txns.render(transaction),
                timestamp=stamp,
            )
            if quote.status == quote_store.PROCESSING:
                quote_store.set_status(db, quote, quote_store.COMPLETED, later_than(stamp))
            done += 1
    return done


def _credit_internal(services: Services, quote: Quote, transaction: Transaction) -> None:
    """Credit an internal destination (a slow pull lands in the customer's account)."""
    internal = internal_accounts.load(services.db, quote.platform_id, quote.destination_account_id)
    if internal is not None:
        ledger.post(
            services.db, internal.id, transaction.received_amount, ledger.CREDIT, transaction.id
        )


class SlowSettler:
    """A daemon thread completing slow payments when they are due."""

    def __init__(self, services: Services) -> None:
        self._services = services
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        self._stop.clear()
        self._thread = threading.Thread(target=self._run, name="slow-settler", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None

    def _run(self) -> None:
        while not self._stop.wait(POLL_S):
            try:
                settle_due(self._services)
            except Exception:  # keep settling later payments; the error is logged
                _log.exception("settling slow payments failed")
