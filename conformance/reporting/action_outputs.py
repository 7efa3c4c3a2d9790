"""The GitHub Action's ``verdict``: this run's, from its exit code and its own summary.

``action.yml`` notes the moment before it starts ``conformance run``, then calls
``python -m conformance.reporting.action_outputs --exit-code N --report-dir DIR --since T``,
which prints the step's outputs for ``$GITHUB_OUTPUT`` and, with ``--step-summary FILE``,
adds this run's ``summary.md`` to the job summary.

The exit code decides. A report folder may hold an earlier run's ``summary.json`` (a run
that stops at a usage error writes none; a reused workspace keeps old files), so a summary
counts only when this run wrote it: its ``started_at`` and its file's time are no earlier
than the moment the Action started the run. The summary then only tells apart what one exit
code covers: exit 2 is ``no_tests`` when this run's summary says so, else ``usage_error``.
Exit 0 is ``passed`` and exit 1 ``failed`` whatever a summary says (one that disagrees is not
this run's last word); 3 is ``not_run``, 4 ``incomplete``, and any other code (the run was
killed, or the command was not found) ``incomplete``: the run did not finish.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Mapping, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any

from conformance.ground.exit_codes import EXIT_CODES
from conformance.reporting.action_coverage import coverage_outputs
from conformance.reporting.causes import cause_lines

__all__ = ["VERDICTS", "derive_verdict", "main", "this_runs_summary"]

VERDICTS = {0: "passed", 1: "failed", 2: "usage_error", 3: "not_run", 4: "incomplete"}
# File times and ``started_at`` (whole seconds, truncated) may read a little earlier than the
# moment noted before the run started.
_SLACK_S = 2.0


def this_runs_summary(report_dir: Path, since: float) -> dict[str, Any] | None:
    """``report_dir/summary.json`` if this run (started at ``since``, epoch seconds) wrote
    it; None when it is missing, unreadable or older."""
    path = report_dir / "summary.json"
    try:
        written = path.stat().st_mtime
        summary = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(summary, dict) or written < since - _SLACK_S:
        return None
    try:
        started = datetime.fromisoformat(str(summary.get("started_at"))).timestamp()
    except ValueError:
        return None
    return summary if started >= since - _SLACK_S else None


def derive_verdict(exit_code: int, summary: Mapping[str, Any] | None) -> str:
    """The run's verdict: the exit code's, refined by this run's summary where one code
    covers two verdicts (2: a usage error, or no test ran)."""
    verdict = VERDICTS.get(exit_code, "incomplete")
    told = summary.get("verdict") if summary is not None else None
    if told in EXIT_CODES and EXIT_CODES[told] == exit_code:  # the summary agrees
        return str(told)
    return verdict


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m conformance.reporting.action_outputs",
        description="Print the GitHub Action's outputs for this run (for $GITHUB_OUTPUT).",
    )
    parser.add_argument("--exit-code", type=int, required=True, help="conformance run's code")
    parser.add_argument("--report-dir", required=True, help="the run's report folder")
    parser.add_argument(
        "--since", type=float, required=True, help="epoch seconds noted before the run started"
    )
    parser.add_argument("--step-summary", help="append this run's summary.md to this file")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Print ``verdict=...`` and ``summary-from-this-run=true|false``; add the job summary."""
    ns = _parser().parse_args(argv)
    report_dir = Path(ns.report_dir)
    summary = this_runs_summary(report_dir, ns.since)
    verdict = derive_verdict(ns.exit_code, summary)
    print(f"verdict={verdict}")
    print(f"summary-from-this-run={'true' if summary is not None else 'false'}")
    print("\n".join(coverage_outputs(verdict, summary, report_dir, ns.since)))
    found = (summary or {}).get("causes") or []
    print(f"causes={len(found)}")
    if found:  # one line each, the first output a reader of the job sees after the verdict
        print(f"first-cause={cause_lines(found, limit=1)[0]}")
    if ns.step_summary:
        markdown = report_dir / "summary.md"
        if summary is not None and markdown.is_file():
            text = markdown.read_text(encoding="utf-8")
        else:
            text = (
                f"# Conformance run: {verdict.upper().replace('_', ' ')} (exit {ns.exit_code})\n\n"
                f"This run wrote no summary to `{report_dir}`; its log says why.\n"
            )
        with open(ns.step_summary, "a", encoding="utf-8") as step_summary:
            step_summary.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
