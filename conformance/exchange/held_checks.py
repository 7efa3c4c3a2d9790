"""Answer-check failures held until the body is read: the clause under test is judged first.

Every answer gets the registered checks (``answer_checks.py``). A check of the body (its
decoding, its schema, the ledger) used to fail the request itself, before the test saw the
answer: a test about a status (a refusal answers 400; a wrong secret answers 401) then
reported the body's defect instead of its own, and a second defect hid the first.

During a test phase a body check's failure is held on the answer instead. Reading the body
(``ApiResponse.json``) raises it, as before; a test that judges the status first reports
its own clause first. A held failure the test never raised (it read only the status, and
passed) is raised when the phase ends, so no answer's defect is lost. Outside a test phase
(preflight, session set-up) nothing is held: a failure is raised at once. Checks of the
status itself (a 5xx) are never held; the first one raised in the phase is kept for a
Hypothesis replay that went another way (``surprises.py``). One per session
(``run_state.py``).
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the answer holds the failure; it is read here, never built
    from conformance.contract.failures import ConformanceFailure
    from conformance.exchange.answer import ApiResponse

__all__ = ["HeldFailures"]


class HeldFailures:
    """The answers of the running test phase whose body failed a check."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._open = False
        self._answers: list[ApiResponse] = []
        self._raised: ConformanceFailure | None = None

    def begin(self) -> None:
        """A test phase starts: body-check failures are held from now on."""
        with self._lock:
            self._open, self._answers, self._raised = True, [], None

    def raised(self, failure: ConformanceFailure) -> None:
        """An answer check's failure was raised at the request (not held)."""
        with self._lock:
            if self._open and self._raised is None:
                self._raised = failure

    def first_raised(self) -> ConformanceFailure | None:
        """The phase's first answer-check failure raised at its request: what a Hypothesis
        replay that went another way (a target answering 500 now and then) first met."""
        with self._lock:
            return self._raised

    def hold(self, answer: ApiResponse, failure: ConformanceFailure) -> bool:
        """Hold ``failure`` on ``answer`` until its body is read; False outside a phase (the
        caller raises it at once)."""
        with self._lock:
            if not self._open:
                return False
            answer.held = failure
            self._answers.append(answer)
            return True

    def end(self) -> ConformanceFailure | None:
        """The phase ends: the first held failure its test never raised, if any."""
        with self._lock:
            answers, self._open, self._answers = self._answers, False, []
        return next((a.held for a in answers if a.held is not None and not a.held_raised), None)
