"""How the suite creates and executes quotes (§3 Quote and transaction, §4 Quotes and
transactions), and waits, on the target's clock, for a quote to expire (§8 Limits).

Tests say what they check; this module does the calls. A step that is only set-up fails
with the clause that makes it valid (a valid quote is created, a PENDING one executes), so
a broken set-up reads as the violation it is.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from datetime import UTC, datetime, timedelta
from email.utils import parsedate_to_datetime
from typing import Any

import pytest

from conformance.contract import clauses
from conformance.contract.failures import fail
from conformance.exchange.assertions import required_json
from conformance.exchange.client import ApiResponse, TargetClient
from conformance.ground.progress import WaitProgress
from conformance.ground.timestamps import parse_timestamp
from conformance.payments.quote_bodies import quote_body
from conformance.payments.target_clock import expiry_proven_at

__all__ = ["EXPIRY_MARGIN_S", "LONGEST_QUOTE_LIFETIME_S", "QUOTES_CLAUSE", "Quotes"]

QUOTES_CLAUSE = clauses.QUOTES_ENDPOINTS
TRANSITION_CLAUSE = clauses.QUOTE_AND_TRANSACTION_STATES
# How long past a quote's lifetime the suite waits for the target's clock to pass expiresAt.
EXPIRY_MARGIN_S = 3.0
LIMITS_CLAUSE = clauses.LIMITS
# §8: a quote lives up to 15 minutes; no wait for an expiry is longer (so a run ends)
LONGEST_QUOTE_LIFETIME_S = 15 * 60


class Quotes:
    """Creates and executes quotes for one test session, and awaits their expiry."""

    def __init__(self, client: TargetClient) -> None:
        self.client = client
        # quote id -> time.monotonic() when the answer creating it arrived (target_clock.py)
        self._quote_answered_at: dict[str, float] = {}

    def create_quote(self, body: Mapping[str, Any]) -> ApiResponse:
        """POST /quotes."""
        return self.client.post("/quotes", json=dict(body))

    def quote(self, body: Mapping[str, Any]) -> dict[str, Any]:
        """A quote created from a valid body."""
        __tracebackhide__ = True
        quote: dict[str, Any] = required_json(
            self.create_quote(body),
            QUOTES_CLAUSE,
            "POST /quotes with a valid request creates the Quote",
            status=(200, 201),
        )
        if isinstance(quote.get("id"), str):
            self._quote_answered_at[quote["id"]] = time.monotonic()
        return quote

    def server_time(self) -> datetime | None:
        """The target's clock, from the Date header of a cheap request (None without one)."""
        response = self.client.get("/config")
        # a duplicated header is read as its first value; HTTP dates are GMT, zone or not
        headers = response.headers.get_list("date")
        try:
            parsed = parsedate_to_datetime(headers[0]) if headers else None
        except (TypeError, ValueError, IndexError, OverflowError):
            return None
        if parsed is not None and parsed.tzinfo is None:
            parsed = parsed.replace(tzinfo=UTC)
        return parsed

    def wait_past(
        self,
        quote: Mapping[str, Any],
        *,
        what: str = "a quote to expire",
        limit_clause: str | None = LIMITS_CLAUSE,
    ) -> None:
        """Wait until the target's clock has passed the quote's ``expiresAt``.

        Ends at the first proof of it (``target_clock.py``): the target's Date header later
        than ``expiresAt`` (polled, less often while expiry is far), or enough time since
        the answer that created the quote (``quote["id"]``, made by :meth:`quote`). Without
        a Date header, the local clock shifted by the target's ``createdAt``. Bounded by
        ``expiresAt`` plus ``EXPIRY_MARGIN_S``, never a fixed sleep. A long wait shows
        ``what`` it awaits on the console.

        A stated lifetime over 15 minutes is not awaited: it fails ``limit_clause`` (§8
        bounds a quote's), or, where the interface bounds none (None), the test skips.
        """
        expires = parse_timestamp(quote.get("expiresAt"))
        created = parse_timestamp(quote.get("createdAt"))
        if expires is None:
            return
        offset = (created - datetime.now(UTC)) if created is not None else timedelta(0)
        lifetime = (expires - created).total_seconds() if created is not None else 0.0
        if lifetime > LONGEST_QUOTE_LIFETIME_S + 1:  # a second for rounded timestamps
            stated = {"createdAt": quote.get("createdAt"), "expiresAt": quote.get("expiresAt")}
            if limit_clause is None:
                pytest.skip(
                    f"{what}: expiresAt is {lifetime:.0f} s after createdAt ({stated}); the "
                    "run waits at most 15 minutes (a quote's longest lifetime, §8)"
                )
            fail(
                limit_clause,
                "a quote lives up to 15 minutes: its expiry is awaited no longer",
                expected=f"expiresAt - createdAt <= {LONGEST_QUOTE_LIFETIME_S} s",
                observed=stated,
            )
        deadline = time.monotonic() + max(lifetime, 0.0) + EXPIRY_MARGIN_S
        answered_at = self._quote_answered_at.get(str(quote.get("id")))
        proven_at = (
            None
            if answered_at is None
            else expiry_proven_at(quote.get("createdAt"), quote.get("expiresAt"), answered_at)
        )
        progress: WaitProgress | None = None
        while time.monotonic() < deadline:
            if proven_at is not None and time.monotonic() >= proven_at:
                break
            server = self.server_time()
            now = server if server is not None else datetime.now(UTC) + offset
            if now > expires:
                break
            left = (expires - now).total_seconds()
            if progress is None:
                progress = WaitProgress(f"{what} (expiresAt {quote.get('expiresAt')})",
                                        min(left + 1, deadline - time.monotonic()))  # fmt: skip
            progress.tick(left)
            # half the time left while far (the Date header counts whole seconds), then 0.5 s
            pause = max(min(left / 2, 15.0), min(left, 0.5), 0.05)
            wake = deadline if proven_at is None else min(deadline, proven_at)
            time.sleep(min(pause, max(wake - time.monotonic(), 0)))
        if progress is not None:
            progress.done()

    def execute(self, quote_id: str) -> ApiResponse:
        """POST /quotes/{quoteId}/execute (no body)."""
        return self.client.post(f"/quotes/{quote_id}/execute")

    def execute_ok(self, quote_id: str) -> dict[str, Any]:
        """Execute a PENDING quote before its expiry; the executed quote."""
        __tracebackhide__ = True
        quote: dict[str, Any] = required_json(
            self.execute(quote_id),
            TRANSITION_CLAUSE,
            "POST /quotes/{quoteId}/execute on a PENDING quote before expiresAt, from a "
            "prefunded source, executes it",
        )
        return quote

    def pay(
        self, source_id: str, destination_id: str, amount: int = 10_000, **extra: Any
    ) -> dict[str, Any]:
        """Quote and execute at once; the executed quote."""
        quote = self.quote(quote_body(source_id, destination_id, amount=amount, **extra))
        return self.execute_ok(quote["id"])
