"""``summary.json`` and ``summary.md``: the output contract CI jobs and scripts read.

Runs in the controlling process only; under xdist it sees every worker's reports, which
carry the part, requirement ids and advisories as user properties.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from conformance import INTERFACE_VERSION, SUITE_VERSION
from conformance.markers import (
    ADVISORY_PROPERTY,
    PART_PROPERTY,
    REQUESTS_PROPERTY,
    REQUIREMENTS_PROPERTY,
)
from conformance.requirements import PARTS, Catalogue

__all__ = ["SummaryReporter", "failure_message"]

_OUTCOMES = ("passed", "failed", "skipped", "errors")


@dataclass
class _TestResult:
    nodeid: str
    part: str | None = None
    requirements: tuple[str, ...] = ()
    outcome: str = "passed"
    message: str = ""
    requests: int = 0
    advisories: list[str] = field(default_factory=list)


def failure_message(report: pytest.TestReport) -> str:
    """The failure's message: the conformance clause when there is one, else the crash line."""
    longrepr = report.longrepr
    crash = getattr(getattr(longrepr, "reprcrash", None), "message", None)
    text = crash if crash else str(longrepr)
    # drop the exception's qualified class name ("conformance.failures.ConformanceFailure: ")
    head, sep, rest = text.partition(": ")
    if sep and head.replace(".", "").replace("_", "").isalnum() and " " not in head:
        text = rest
    return text.strip()


def _property(report: pytest.TestReport, name: str) -> list[str]:
    return [str(value) for key, value in report.user_properties if key == name]


class SummaryReporter:
    """Collects test outcomes and writes the summary files at the end of the session."""

    def __init__(self, report_dir: Path, catalogue: Catalogue, target: dict[str, Any]) -> None:
        self.report_dir = report_dir
        self.catalogue = catalogue
        self.target = target
        self.results: dict[str, _TestResult] = {}
        self.started_at = datetime.now(UTC)
        self._started = time.monotonic()

    @pytest.hookimpl(trylast=True)
    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        result = self.results.setdefault(report.nodeid, _TestResult(report.nodeid))
        parts = _property(report, PART_PROPERTY)
        if parts:
            result.part = parts[0]
        ids = _property(report, REQUIREMENTS_PROPERTY)
        if ids and ids[0]:
            result.requirements = tuple(ids[0].split(","))
        result.requests += sum(int(n) for n in _property(report, REQUESTS_PROPERTY))
        for advisory in _property(report, ADVISORY_PROPERTY):
            if advisory not in result.advisories:
                result.advisories.append(advisory)
        if report.when == "call":
            if report.failed:
                result.outcome, result.message = "failed", failure_message(report)
            elif report.skipped and result.outcome == "passed":
                result.outcome = "skipped"
                result.message = _skip_text(report)
        elif report.failed:  # setup or teardown
            if result.outcome != "failed":
                result.outcome, result.message = "errors", failure_message(report)
        elif report.skipped and report.when == "setup":
            result.outcome, result.message = "skipped", _skip_text(report)

    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        summary = self.build()
        self.report_dir.mkdir(parents=True, exist_ok=True)
        (self.report_dir / "summary.json").write_text(
            json.dumps(summary, indent=2) + "\n", encoding="utf-8"
        )
        (self.report_dir / "summary.md").write_text(render_markdown(summary), encoding="utf-8")

    def build(self) -> dict[str, Any]:
        """The summary as the output contract defines it."""
        results = [r for r in self.results.values() if r.part is not None]
        totals = dict.fromkeys(_OUTCOMES, 0)
        parts = {part: dict.fromkeys(_OUTCOMES, 0) for part in PARTS}
        for result in results:
            totals[result.outcome] += 1
            parts[result.part or ""][result.outcome] += 1
        return {
            "interface_version": INTERFACE_VERSION,
            "suite_version": SUITE_VERSION,
            "target": self.target,
            "started_at": self.started_at.isoformat(timespec="seconds").replace("+00:00", "Z"),
            "duration_s": round(time.monotonic() - self._started, 3),
            "totals": totals,
            "parts": parts,
            "requests": sum(r.requests for r in results),
            "requirements": self._requirement_statuses(results),
            "failures": [
                {
                    "nodeid": r.nodeid,
                    "part": r.part,
                    "requirements": list(r.requirements),
                    "message": r.message,
                }
                for r in results
                if r.outcome in ("failed", "errors")
            ],
            "advisories": [
                {"nodeid": r.nodeid, "part": r.part, "message": message}
                for r in results
                for message in r.advisories
            ],
        }

    def _requirement_statuses(self, results: list[_TestResult]) -> list[dict[str, str]]:
        seen: dict[str, set[str]] = {}
        for result in results:
            for rid in result.requirements:
                seen.setdefault(rid, set()).add(result.outcome)
        statuses = []
        for requirement in self.catalogue:
            outcomes = seen.get(requirement.id, set())
            if outcomes & {"failed", "errors"}:
                status = "failed"
            elif "passed" in outcomes:
                status = "passed"
            elif outcomes:
                status = "skipped"
            else:
                status = "untested"
            statuses.append({"id": requirement.id, "part": requirement.part, "status": status})
        return statuses


def _skip_text(report: pytest.TestReport) -> str:
    longrepr = report.longrepr
    if isinstance(longrepr, tuple) and len(longrepr) == 3:
        return str(longrepr[2]).removeprefix("Skipped: ")
    return str(longrepr)


def render_markdown(summary: dict[str, Any]) -> str:
    """A short human summary: totals, a row per part, failures, advisories."""
    totals = summary["totals"]
    verdict = "FAILED" if totals["failed"] or totals["errors"] else "PASSED"
    lines = [
        f"# Conformance run: {verdict}",
        "",
        f"- interface version: {summary['interface_version']}",
        f"- suite version: {summary['suite_version']}",
        f"- target: {summary['target'].get('base_url')} ({summary['target'].get('environment')})",
        f"- started: {summary['started_at']}, duration {summary['duration_s']:.1f} s",
        f"- totals: {totals['passed']} passed, {totals['failed']} failed, "
        f"{totals['skipped']} skipped, {totals['errors']} errors",
        f"- requests sent to the target: {summary.get('requests', 0)}",
        "",
        "| part | passed | failed | skipped | errors |",
        "|---|---|---|---|---|",
    ]
    for part, counts in summary["parts"].items():
        lines.append(
            f"| {part} | {counts['passed']} | {counts['failed']} | {counts['skipped']} "
            f"| {counts['errors']} |"
        )
    statuses: dict[str, int] = {}
    for requirement in summary["requirements"]:
        statuses[requirement["status"]] = statuses.get(requirement["status"], 0) + 1
    lines += [
        "",
        "Requirements: " + ", ".join(f"{n} {s}" for s, n in sorted(statuses.items())),
    ]
    if summary["failures"]:
        lines += ["", "## Failures", ""]
        for failure in summary["failures"]:
            first = failure["message"].splitlines()[0] if failure["message"] else ""
            ids = ", ".join(failure["requirements"])
            lines.append(f"- `{failure['nodeid']}` ({failure['part']}; {ids}): {first}")
    if summary["advisories"]:
        lines += ["", "## Advisories (never failing)", ""]
        for advisory in summary["advisories"]:
            lines.append(f"- `{advisory['nodeid']}`: {advisory['message']}")
    return "\n".join(lines) + "\n"
