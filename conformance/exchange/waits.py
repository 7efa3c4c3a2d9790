"""Waits that ran out: once a wait for a thing the target never did has timed out, later
tests that need the same thing end at once with the same failure, charged to its own
requirement (``reporting/causes.py`` blocks the tests it is not about), instead of each
waiting out its own deadline for it. One record per session (``run_state.py``)."""

from __future__ import annotations

import threading
from typing import Any

from conformance.contract.failures import ConformanceFailure

__all__ = ["RanOut"]


class RanOut:
    """The waits of this session that ran out, by what they waited for."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._failures: dict[str, ConformanceFailure] = {}

    def record(self, what: str, failure: ConformanceFailure) -> None:
        """The wait for ``what`` ran out with ``failure`` (charged to its requirement)."""
        with self._lock:
            self._failures.setdefault(what, failure)

    def known(self, what: str) -> ConformanceFailure | None:
        """A new failure like the one a wait for ``what`` ended with, if one did."""
        with self._lock:
            earlier = self._failures.get(what)
        if earlier is None:
            return None
        hint = f"not waited for again: an earlier test waited in vain for {what}"
        if earlier.hint:
            hint += f" ({earlier.hint})"
        shown: dict[str, Any] = {} if earlier.expected is None else {"expected": earlier.expected}
        again = ConformanceFailure(
            earlier.clause, earlier.statement, observed=earlier.observed, hint=hint, **shown
        )
        again.charged_to, again.owners, again.cause, again.check = (
            earlier.charged_to,
            earlier.owners,
            earlier.cause,
            earlier.check,
        )
        return again
