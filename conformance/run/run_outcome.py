"""How a ``conformance run`` owns its report folder and says how it ended.

The folder is claimed at the run's first moment (``claim``); a run that ends before its
session could write a summary (a usage error, a stop during start-up) gets one saying only
its verdict (``write_verdict_only``); a run stopped by a signal or crashed gets its last
word here (``end_abnormally``), so that the summary, JUnit and the exit code agree.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from conformance.ground import options as opt
from conformance.ground import stop_signal
from conformance.ground.exit_codes import EXIT_CODES, EXIT_INCOMPLETE

if TYPE_CHECKING:  # read lazily: the reports are heavy to import before a run
    from conformance.reporting.summaries import RunOutcome

__all__ = [
    "RUN",
    "claim",
    "end_abnormally",
    "report_dir_in",
    "stopped_outside_a_run",
    "write_verdict_only",
]


class _RunState:
    """How far this process's ``conformance run`` got: its claimed folder, its exit code,
    and the outcome it handed to its session."""

    report_dir: Path | None = None
    code: int | None = None
    outcome: RunOutcome | None = None


RUN = _RunState()


def end_abnormally(
    report_dir: Path, crash: BaseException | None, outcome: RunOutcome | None = None
) -> int:
    """The run was stopped (a signal) or crashed: the reports say INCOMPLETE with the counts
    of the tests that finished (or the target could not be tested, if that came first),
    the report folder is scrubbed once more, and one line says so: no traceback for a stop.
    """
    from conformance.ground import redaction
    from conformance.reporting.summaries import RunOutcome

    outcome = outcome or RUN.outcome or RunOutcome()
    signal_name = stop_signal.stopping()
    if crash is not None and signal_name is None:
        import traceback

        text = "".join(traceback.format_exception(crash))
        print(redaction.scrub(text), file=sys.stderr, end="")
        reason = f"the run crashed: {type(crash).__name__}: {crash}"
    elif signal_name is not None:
        reason = f"stopped by {signal_name} before the end"
    else:
        reason = "the run ended without a verdict (pytest stopped early)"
    reporter = outcome.reporter
    if reporter is not None:
        reporter.interrupted = reporter.interrupted or reason
        reporter.finish_interrupted()
    else:
        write_verdict_only(report_dir, "incomplete", f"{reason}, during start-up")
        outcome.verdict, outcome.reason = "incomplete", reason
    from conformance.reporting.junit_file import drop_unfinished_testcases

    drop_unfinished_testcases(report_dir / "junit.xml")
    redaction.scrub_tree(report_dir)  # the last pass may be what was interrupted
    verdict = outcome.verdict if outcome.verdict == "not_run" else "incomplete"
    what = "could not run" if verdict == "not_run" else "INCOMPLETE"
    print(
        redaction.scrub(f"conformance: {what} (exit {EXIT_CODES[verdict]}): {outcome.reason}"),
        file=sys.stderr,
    )
    return EXIT_CODES[verdict]


def write_verdict_only(report_dir: Path, verdict: str, reason: str | None) -> None:
    """A summary for a run that ended before its session could write one."""
    from conformance.reporting import summaries

    if verdict == "usage_error":
        reason = reason or "a usage error stopped the run before it started (see the console)"
    try:
        summaries.write_verdict_only(report_dir, verdict, reason)
    except OSError as exc:  # the folder was claimed; what changed is said, the code stays
        print(f"conformance: could not write the summary in {report_dir}: {exc}", file=sys.stderr)


def report_dir_in(argv: Sequence[str]) -> Path:
    """The report folder a command line names, read leniently (it may not parse)."""
    head = list(argv[: list(argv).index("--")] if "--" in argv else argv)
    flag = opt.REPORT_DIR.flag
    for index, arg in enumerate(head):
        if arg == flag and index + 1 < len(head):
            return Path(head[index + 1])
        if arg.startswith(f"{flag}="):
            return Path(arg.split("=", 1)[1])
    return Path(os.environ.get(opt.REPORT_DIR.env) or "reports")


def claim(report_dir: Path, baseline: str | None) -> bool:
    """Make the report folder this run's (a baseline inside it is read first); False, said
    on the console, when it cannot be written."""
    from conformance.reporting.report_paths import ReportFolderError, claim_report_folder

    if baseline:
        from conformance.reporting.baseline import preload

        preload(baseline)
    try:
        claim_report_folder(report_dir, opt.REPORT_DIR.flag)
    except ReportFolderError as exc:
        print(exc, file=sys.stderr)
        return False
    return True


def stopped_outside_a_run(argv: Sequence[str]) -> int:
    """A stop that reached the top: after the run said its verdict (that stands), while it
    ended (its reports say INCOMPLETE), or before it claimed its folder (claimed now)."""
    if RUN.code is not None:
        return RUN.code
    if RUN.report_dir is not None:
        return end_abnormally(RUN.report_dir, None)
    if argv and argv[0] in ("run", "receiver"):
        report_dir = report_dir_in(argv[1:])
        if claim(report_dir, None):
            write_verdict_only(report_dir, "incomplete", "stopped during start-up")
    print(f"conformance: INCOMPLETE (exit {EXIT_INCOMPLETE}): stopped by "
          f"{stop_signal.stopping() or 'an interrupt'}", file=sys.stderr)  # fmt: skip
    return EXIT_INCOMPLETE
