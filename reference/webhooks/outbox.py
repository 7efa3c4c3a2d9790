"""The webhook outbox: every event to deliver is a row, so nothing is lost on a restart.

Rows are written in the same database transaction as the change they report; the delivery
worker (``reference.webhooks.delivery``) reads due rows and records each attempt here. The retry
schedule lives here too, because it decides what the row says next.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass

from reference.kernel.clock import iso, utc_now
from reference.kernel.db import Database

SCHEMA = (
    """CREATE TABLE IF NOT EXISTS webhook_outbox (
        seq INTEGER PRIMARY KEY AUTOINCREMENT,
        event_id TEXT NOT NULL UNIQUE,
        platform_id TEXT NOT NULL REFERENCES platforms(id),
        event_type TEXT NOT NULL,
        target_url TEXT NOT NULL,
        body BLOB NOT NULL,
        state TEXT NOT NULL DEFAULT 'pending'
            CHECK (state IN ('pending', 'delivered', 'failed')),
        attempts INTEGER NOT NULL DEFAULT 0,
        next_attempt_at REAL NOT NULL,
        delivered_at TEXT,
        last_status INTEGER,
        last_error TEXT,
        created_at TEXT NOT NULL
    )""",
    "CREATE INDEX IF NOT EXISTS webhook_outbox_due ON webhook_outbox (state, next_attempt_at)",
)

# Seconds to wait after the n-th failed attempt; one more attempt than delays. Like the
# services platforms meet in production: a quick retry for a blip, then backing off over
# hours: 8 attempts over about 31.6 hours (at least 25 with the jitter), then given up.
RETRY_DELAYS_S = (5.0, 300.0, 1800.0, 7200.0, 18000.0, 36000.0, 50400.0)
MAX_ATTEMPTS = len(RETRY_DELAYS_S) + 1
# Each delay is spread by up to this fraction either way, so that the events an outage
# failed together do not all come back in the same instant.
JITTER = 0.2

_BATCH = 100


class RetrySchedule:
    """When the next attempt of a failed delivery is due, or that there is none."""

    def __init__(self, scale: float = 1.0, rng: random.Random | None = None) -> None:
        """``scale`` multiplies every delay (``--webhook-retry-scale``: tests compress it)."""
        self._scale = scale
        self._rng = rng or random.Random()

    def delay_after(self, attempts: int) -> float | None:
        """Seconds to wait after ``attempts`` failed attempts; None once they are all used."""
        if not 1 <= attempts < MAX_ATTEMPTS:
            return None
        spread = self._rng.uniform(1.0 - JITTER, 1.0 + JITTER)
        return RETRY_DELAYS_S[attempts - 1] * spread * self._scale


@dataclass(frozen=True, slots=True)
class OutboxRow:
    """A delivery to attempt: the exact bytes go on the wire and under the signature."""

    event_id: str
    target_url: str
    body: bytes
    attempts: int
    event_type: str = ""
    platform_id: str = ""


class Outbox:
    """Reads and writes ``webhook_outbox``; tells the worker when a row is added."""

    def __init__(self, db: Database, schedule: RetrySchedule | None = None) -> None:
        self._db = db
        self._schedule = schedule or RetrySchedule()
        self._on_enqueue: Callable[[], None] = lambda: None

    def notify_with(self, callback: Callable[[], None]) -> None:
        """Call ``callback`` (from any thread) whenever a row is enqueued."""
        self._on_enqueue = callback

    def enqueue(
        self, *, event_id: str, platform_id: str, event_type: str, target_url: str, body: bytes
    ) -> None:
        """Add a delivery, due now.

        Inside a caller's transaction the row becomes visible at its commit; the worker
        reads through the same locked connection, so it cannot see it earlier.
        """
        now = utc_now()
        self._db.execute(
            """INSERT INTO webhook_outbox
               (event_id, platform_id, event_type, target_url, body, next_attempt_at, created_at)
               VALUES (?, ?, ?, ?, ?, ?, ?)""",
            (event_id, platform_id, event_type, target_url, body, now.timestamp(), iso(now)),
        )
        self._on_enqueue()

    def due(self, now: float, *, side_by_side: bool = False) -> list[OutboxRow]:
        """For each endpoint, its oldest pending row due at or before ``now``; oldest first.

        One row per endpoint, because an endpoint takes its deliveries one at a time: a
        backlog for one endpoint never fills the batch ahead of another endpoint's rows.
        ``side_by_side`` (the variant reference): every due row, an endpoint's together.
        """
        one_each = """seq IN (SELECT MIN(seq) FROM webhook_outbox
                   WHERE state = 'pending' AND next_attempt_at <= ? GROUP BY target_url)"""
        every = "state = 'pending' AND next_attempt_at <= ?"
        rows = self._db.fetchall(
            f"""SELECT event_id, target_url, body, attempts, event_type, platform_id
               FROM webhook_outbox WHERE {every if side_by_side else one_each}
               ORDER BY seq LIMIT ?""",
            (now, _BATCH),
        )
        return [
            OutboxRow(
                r["event_id"],
                r["target_url"],
                bytes(r["body"]),
                r["attempts"],
                r["event_type"],
                r["platform_id"],
            )
            for r in rows
        ]

    def next_attempt_after(self, now: float) -> float | None:
        """When the earliest pending row not yet due becomes due, or None."""
        row = self._db.fetchone(
            """SELECT MIN(next_attempt_at) AS at FROM webhook_outbox
               WHERE state = 'pending' AND next_attempt_at > ?""",
            (now,),
        )
        return None if row is None else row["at"]

    def record_delivered(self, event_id: str, status: int) -> None:
        """The target answered 2xx: the row is done."""
        self._db.execute(
            """UPDATE webhook_outbox SET state = 'delivered', attempts = attempts + 1,
               delivered_at = ?, last_status = ?, last_error = NULL WHERE event_id = ?""",
            (iso(utc_now()), status, event_id),
        )

    def record_failed_attempt(
        self, row: OutboxRow, status: int | None, error: str, now: float
    ) -> None:
        """The attempt failed: schedule the next one, or give up after ``MAX_ATTEMPTS``.

        The next attempt's time is stored, so a restart with the same database resumes the
        schedule where it was.
        """
        attempts = row.attempts + 1
        delay = self._schedule.delay_after(attempts)
        if delay is not None:
            state, next_at = "pending", now + delay
        else:
            state, next_at = "failed", now
        self._db.execute(
            """UPDATE webhook_outbox SET state = ?, attempts = ?, next_attempt_at = ?,
               last_status = ?, last_error = ? WHERE event_id = ?""",
            (state, attempts, next_at, status, error, row.event_id),
        )
