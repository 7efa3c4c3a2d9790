"""Whether the target still answers: a run stops early when it does not.

A target that dies or hangs mid-run would otherwise cost the whole request deadline on
every remaining request. Each process (each xdist worker) counts the requests in a row its
client got no answer to; once the target is taken as down, the client sends nothing more
and the plugin stops the run with the could-not-run verdict.
"""

from __future__ import annotations

import threading
import time

__all__ = ["DOWN_AFTER_FAILURES", "DOWN_AFTER_S", "TARGET_HEALTH", "TargetHealth"]

# This many requests in a row without an answer (refused, reset, timed out) and the target
# is taken as down: the run stops early instead of timing out every remaining request.
DOWN_AFTER_FAILURES = 3
DOWN_AFTER_S = 15.0


class TargetHealth:
    """Counts requests in a row the target did not answer (per process).

    The target is taken as down after ``limit`` of them, or after two when the streak has
    already lasted ``slow_s`` (two requests that each waited out a long deadline).
    """

    def __init__(self, limit: int = DOWN_AFTER_FAILURES, slow_s: float = DOWN_AFTER_S) -> None:
        self.limit = limit
        self.slow_s = slow_s
        self._lock = threading.Lock()
        self._failures = 0
        self._since = 0.0
        self._last_error = ""
        self.down: str | None = None

    def answered(self) -> None:
        with self._lock:
            self._failures = 0

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
            if (self._failures >= self.limit or slow) and self.down is None:
                self.down = (
                    f"the target stopped answering: {self._failures} requests in a row got no "
                    f"answer in {lasted:.0f} s (last: {self._last_error})"
                )

    def reset(self) -> None:
        with self._lock:
            self._failures, self.down = 0, None


TARGET_HEALTH = TargetHealth()
