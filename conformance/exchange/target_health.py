"""Whether the target can still be tested: a run stops early when it cannot.

A target that dies or hangs mid-run would otherwise cost the whole request deadline on
every remaining request; one that throttles every request would turn each of them into a
clause failure. Each process (each xdist worker) counts the requests in a row its client got
no answer to, and the answers in a row that only throttled it (429, or 503 with
``Retry-After``); once the target is taken as down, or another part of the run finds it
cannot go on (``stop``: webhooks that never arrive), the plugin stops the run with the
could-not-run verdict; a target that stopped answering is sent nothing more.
"""

from __future__ import annotations

import threading
import time

import httpx

from conformance.exchange.capped_read import TooLarge
from conformance.exchange.deadline import SENT_AT
from conformance.exchange.oversized_head import HEAD_LIMIT_BYTES, head_too_large
from conformance.exchange.rate_limit import Throttle, retry_after_seconds
from conformance.exchange.unanswered import describe

__all__ = [
    "DOWN_AFTER_FAILURES",
    "DOWN_AFTER_S",
    "OVERSIZED_AFTER",
    "THROTTLED_AFTER",
    "WHAT",
    "HealthTransport",
    "TargetHealth",
    "TargetStopped",
    "count_throttling",
    "is_throttling",
    "throttling_problem",
]

# This many requests in a row without an answer (refused, reset, timed out) and the target
# is taken as down: the run stops early instead of timing out every remaining request.
DOWN_AFTER_FAILURES = 3
DOWN_AFTER_S = 15.0
# This many answers in a row that throttle (and nothing else in between) and the run cannot
# test the target: a few 429s among successes (a burst, a daily volume limit) never add up.
THROTTLED_AFTER = 10
# This many answers in a row that can never be read (a compressed body that inflates past the
# kit's size cap, a deflate bomb; headers past the parser's limit) and the target cannot be
# tested: one such answer is a failure, a streak would fail every remaining test for it.
OVERSIZED_AFTER = 2
# The request extension that names a request in health messages ("GET /config"): the
# client sets it, as the test wrote the path.
WHAT = "conformance.what"


def is_throttling(status: int, retry_after: str | None) -> bool:
    """Whether an answer only throttles the request: 429, or 503 with ``Retry-After``."""
    return status == 429 or (status == 503 and retry_after is not None)


def throttling_problem(
    answers: int, what: str, status: int, retry_after_s: float | None, rate_limited: bool
) -> str:
    """Why the run cannot go on against a target that throttles, and what to do about it."""
    asked = f" with Retry-After {_duration(retry_after_s)}" if retry_after_s is not None else ""
    head = (
        f"the target throttles the run: {answers} requests in a row were answered 429 (or 503 "
        f"with Retry-After); the last, {what}, answered {status}{asked}"
    )
    if rate_limited:
        return (
            f"{head}. --rate-limit is on and the target still throttles (a Retry-After wait is "
            "made only when it fits in --request-timeout, 3 times at most): lower --rate-limit, "
            "or run when the target's limit allows."
        )
    return (
        f"{head}. Give --rate-limit N (requests a second for the whole run): requests are "
        "then spaced, and a 429 or 503 with Retry-After is waited out when the wait fits in "
        "--request-timeout."
    )


def _duration(seconds: float) -> str:
    if seconds >= 2 * 3600:
        return f"{seconds:g} s (about {seconds / 3600:.0f} hours)"
    if seconds >= 120:
        return f"{seconds:g} s (about {seconds / 60:.0f} minutes)"
    return f"{seconds:g} s"


class TargetHealth:
    """Counts requests in a row the target did not answer, and answers that throttled
    (per process).

    The target is taken as down after ``limit`` requests without an answer, or after two when
    the streak has already lasted ``slow_s`` (two requests that each waited out a long
    deadline); and as not testable after ``throttled_limit`` throttling answers in a row.
    """

    def __init__(
        self,
        limit: int = DOWN_AFTER_FAILURES,
        slow_s: float = DOWN_AFTER_S,
        throttled_limit: int = THROTTLED_AFTER,
        oversized_limit: int = OVERSIZED_AFTER,
    ) -> None:
        self.limit = limit
        self.slow_s = slow_s
        self.throttled_limit = throttled_limit
        self.oversized_limit = oversized_limit
        self._lock = threading.Lock()
        self._failures = 0
        self._throttled = 0
        self._oversized = 0
        self._since = 0.0
        self._last_error = ""
        self.down: str | None = None  # why the run cannot go on: it stops after this test
        self.unreachable: str | None = None  # why requests are not sent any more

    def answered(self) -> None:
        """Record a request the target answered (and did not throttle)."""
        with self._lock:
            self._failures = 0
            self._throttled = 0
            self._oversized = 0

    def too_large(self, what: str, received: int, encoding: str | None) -> None:
        """Record an answer whose body went past the kit's size cap (``received`` bytes read,
        decoded from ``encoding``). Too large is still an answer; only compressed answers
        that inflate past the cap make a streak (a deflate bomb in every answer would fail
        each remaining test for the one reason)."""
        inflated = bool(encoding) and str(encoding).strip().lower() != "identity"
        detail = f"Content-Encoding {encoding}, {received} bytes once decompressed"
        self._unreadable(what, detail if inflated else None)

    def head_too_large(self, what: str, limit: int) -> None:
        """Record an answer whose status line and headers go past the parser's ``limit``."""
        self._unreadable(what, f"headers past {limit} bytes")

    def _unreadable(self, what: str, detail: str | None) -> None:
        """An answer, too large to read: ``detail`` says how when it counts toward the
        streak (None: it ends any streak)."""
        with self._lock:
            self._failures = 0
            self._throttled = 0
            if detail is None:
                self._oversized = 0
                return
            self._oversized += 1
            if self._oversized >= self.oversized_limit and self.down is None:
                self.down = (
                    f"the target's answers are too large to read: {self._oversized} answers in "
                    f"a row went past the kit's limits (last: {what}, {detail}; a body is "
                    "capped once decompressed); every other test would fail for the same reason"
                )

    def throttled(
        self, what: str, status: int, retry_after_s: float | None, *, rate_limited: bool
    ) -> None:
        """Record an answer that only throttled the request (see ``is_throttling``)."""
        with self._lock:
            self._failures = 0
            self._throttled += 1
            if self._throttled >= self.throttled_limit and self.down is None:
                self.down = throttling_problem(
                    self._throttled, what, status, retry_after_s, rate_limited
                )

    def unanswered(self, what: str, error: str, started: float | None = None) -> None:
        """Record a request that got no answer; ``started`` is when it was sent."""
        now = time.monotonic()
        with self._lock:
            if self._failures == 0:
                self._since = now if started is None else started
            self._failures += 1
            self._last_error = f"{what}: {error}"
            lasted = now - self._since
            slow = self._failures >= 2 and lasted >= self.slow_s
            if (self._failures >= self.limit or slow) and self.unreachable is None:
                self.unreachable = (
                    f"the target stopped answering: {self._failures} requests in a row got no "
                    f"answer in {lasted:.0f} s (last: {self._last_error})"
                )
                self.down = self.down or self.unreachable

    def stop(self, reason: str) -> None:
        """The run cannot go on for ``reason`` (the first reason given stands); requests are
        still sent (the current test ends, the webhookEndpoint is put back)."""
        with self._lock:
            if self.down is None:
                self.down = reason

    def reset(self) -> None:
        with self._lock:
            self._failures, self._throttled, self._oversized = 0, 0, 0
            self.down = self.unreachable = None


def count_throttling(
    what: str,
    status: int,
    retry_after: str | None,
    health: TargetHealth,
    throttle: Throttle,
) -> bool:
    """Count an answer that only throttled (``is_throttling``) toward the target's health;
    whether it was one."""
    if not is_throttling(status, retry_after):
        return False
    health.throttled(what, status, retry_after_seconds(retry_after), rate_limited=throttle.enabled)
    return True


class TargetStopped(Exception):
    """Not sent: the target stopped answering earlier in the run (the reason is the text)."""


class HealthTransport(httpx.BaseTransport):
    """The client's target-health layer, above all others: a request to a target that
    stopped answering is not sent (:class:`TargetStopped`); every other is counted as
    answered, throttled or unanswered."""

    def __init__(
        self, inner: httpx.BaseTransport, health: TargetHealth, throttle: Throttle
    ) -> None:
        self._inner = inner
        self._health = health
        self._throttle = throttle

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        if self._health.unreachable is not None:  # the run is stopping: do not wait again
            raise TargetStopped(self._health.unreachable)
        what = str(request.extensions.get(WHAT) or f"{request.method} {request.url.path}")
        started = time.monotonic()
        try:
            response = self._inner.handle_request(request)
        except TooLarge as too_large:  # an answer too large to read is still an answer
            encoding = too_large.response.headers.get("content-encoding")
            self._health.too_large(what, too_large.received, encoding)
            raise
        except httpx.DecodingError:
            raise  # it answered: the body is what is wrong
        except httpx.TransportError as exc:  # sent when the deadline began, past the throttle
            if head_too_large(exc):  # an answer, too large to read: no "stopped answering"
                self._health.head_too_large(what, HEAD_LIMIT_BYTES)
                raise
            self._health.unanswered(what, describe(exc), request.extensions.get(SENT_AT, started))
            raise
        retry_after = response.headers.get("retry-after")
        if not count_throttling(
            what, response.status_code, retry_after, self._health, self._throttle
        ):
            self._health.answered()
        return response

    def close(self) -> None:
        self._inner.close()
