"""``conformance serve --check-clients DIR``: the reference sandbox judges the requests of a
platform's client, and when it is stopped (SIGINT, SIGTERM) the reports are written to DIR
in the formats of ``conformance run``.

The sandbox runs as a child process (the kit never imports it) with the terminal's stdout,
so its start-up line is the first line there, as with a plain ``serve``; a signal to this
command is passed on to it. It journals each finding as it judges (``client-check.jsonl``),
so a sandbox killed outright loses nothing already judged; the reports are built from the
journal once it has stopped.

One check per folder (``folder_lock.py``): a second one on the same DIR refuses to start.

Exit codes: 0 no finding, 1 findings, 2 a usage error (or no request was judged, or another
check holds DIR), 4 the sandbox did not stop as asked (it crashed or was killed): the
reports say INCOMPLETE.
"""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from pathlib import Path
from types import FrameType

from conformance.ground.exit_codes import EXIT_CODES, EXIT_USAGE
from conformance.reporting.client_journal import ClientJournal, read_journal
from conformance.reporting.client_reports import CheckRun, write_reports
from conformance.reporting.report_paths import (
    ReportFolderError,
    claim_report_folder,
    render_locations,
)
from conformance.run import run_outcome
from conformance.run.folder_lock import holding_folder

__all__ = ["CHECK_FLAG", "check_folder", "serve_checking_clients"]

CHECK_FLAG = "--check-clients"
# what only the sandbox answers, at once: nothing to check, nothing to report
_ANSWERED_AT_ONCE = ("-h", "--help", "--list-faults")
_IN_PROGRESS = "the check is in progress, or its sandbox was killed before it could stop"
# signals passed on before the sandbox is killed instead (a second one stops uvicorn at once)
_FORWARDS_BEFORE_KILL = 2


def check_folder(args: Sequence[str]) -> str | None:
    """The DIR of ``--check-clients DIR`` (or ``=DIR``) in a ``serve`` command line; None
    without it, or where only the sandbox answers (help, the fault list, a missing DIR)."""
    if any(arg in _ANSWERED_AT_ONCE for arg in args):
        return None
    for index, arg in enumerate(args):
        if arg.startswith(f"{CHECK_FLAG}="):
            return arg.split("=", 1)[1] or None
        if arg == CHECK_FLAG and index + 1 < len(args) and not args[index + 1].startswith("-"):
            return args[index + 1]
    return None


def _run_forwarding(command: list[str], env: Mapping[str, str]) -> int:
    """Run ``command`` to its end; SIGINT and SIGTERM received meanwhile (from before it
    starts) are passed on to it, and past ``_FORWARDS_BEFORE_KILL`` it is killed."""
    child: subprocess.Popen[bytes] | None = None
    received: list[int] = []

    def forward(signum: int, frame: FrameType | None) -> None:
        received.append(signum)
        if child is None:
            return  # passed on once it exists
        if len(received) > _FORWARDS_BEFORE_KILL:
            child.kill()
        else:
            child.send_signal(signum)

    previous = {sig: signal.signal(sig, forward) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        child = subprocess.Popen(command, env=dict(env))
        for signum in received[:_FORWARDS_BEFORE_KILL]:
            child.send_signal(signum)
        return child.wait()
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


def _exit_code(verdict: str) -> int:
    return EXIT_CODES.get(verdict, EXIT_CODES["incomplete"])


def serve_checking_clients(args: Sequence[str], folder: str, env: Mapping[str, str]) -> int:
    """Run the sandbox with ``args`` (``--check-clients`` among them) until it stops, then
    write the reports in ``folder``; the exit code."""
    report_dir = Path(folder)
    try:
        with holding_folder(report_dir, CHECK_FLAG):  # one check per folder
            claim_report_folder(report_dir, CHECK_FLAG)
            return _check(args, report_dir, env)
    except ReportFolderError as exc:
        print(exc, file=sys.stderr)
        return EXIT_USAGE


def _check(args: Sequence[str], report_dir: Path, env: Mapping[str, str]) -> int:
    """The check itself, in a folder it holds and has claimed."""
    started_at, started = datetime.now(UTC), time.monotonic()
    write_reports(report_dir, ClientJournal(), CheckRun(started_at, 0.0, _IN_PROGRESS))
    sys.stdout.flush()
    status = _run_forwarding([sys.executable, "-m", "reference", "serve", *args], env)
    if status == EXIT_USAGE:  # the sandbox said what is wrong with its command line
        run_outcome.write_verdict_only(report_dir, "usage_error", "see the message above")
        return EXIT_USAGE
    journal = read_journal(report_dir)
    incomplete = None
    if status != 0 or not journal.started:
        incomplete = f"the reference sandbox ended with exit status {status}"
    summary = write_reports(
        report_dir, journal, CheckRun(started_at, time.monotonic() - started, incomplete)
    )
    code = _exit_code(summary["verdict"])
    findings = len(summary["findings"])
    print(
        f"{render_locations(report_dir)}\nconformance: client check {summary['verdict']}: "
        f"{findings} finding{'' if findings == 1 else 's'} (exit {code})",
        file=sys.stderr,
    )
    return code
