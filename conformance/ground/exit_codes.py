"""The exit codes of ``conformance run`` (the output contract keeps 0, 1 and 2), and the
verdict each one stands for. Only the standard library: the command line reads these
before it imports anything heavy."""

from __future__ import annotations

from conformance.ground.stop_signal import EXIT_INTERRUPTED

__all__ = [
    "EXIT_CODES",
    "EXIT_FAILED",
    "EXIT_INCOMPLETE",
    "EXIT_NOT_RUN",
    "EXIT_OK",
    "EXIT_USAGE",
    "VERDICTS",
]

EXIT_OK, EXIT_FAILED, EXIT_USAGE, EXIT_NOT_RUN, EXIT_INCOMPLETE = 0, 1, 2, 3, EXIT_INTERRUPTED
# summary.json's verdict -> the exit code that goes with it
EXIT_CODES = {
    "passed": EXIT_OK,
    "failed": EXIT_FAILED,
    "usage_error": EXIT_USAGE,
    "no_tests": EXIT_USAGE,
    "not_run": EXIT_NOT_RUN,
    "incomplete": EXIT_INCOMPLETE,
}
VERDICTS = tuple(EXIT_CODES)
