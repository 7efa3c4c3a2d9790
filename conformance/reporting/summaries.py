"""``summary.json`` and ``summary.md``: the output contract CI jobs and scripts read.

Runs in the controlling process only; under xdist it sees every worker's reports, which
carry the part, requirement ids and advisories as user properties.

Every run says what it is (``verdict``): ``passed``, ``failed``, ``incomplete`` (stopped by
Ctrl-C or SIGTERM, or crashed), ``not_run`` (the target could not be tested, at preflight
or because mid-run it stopped answering, throttled every request, or its webhooks stopped
arriving), ``no_tests`` or ``usage_error``. The command line writes a placeholder saying
INCOMPLETE when it claims the report folder, so a run that dies before its end never
leaves a report reading PASSED.
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
from conformance.contract.markers import (
    ADVISORY_PROPERTY,
    PART_PROPERTY,
    REQUESTS_PROPERTY,
    REQUIREMENTS_PROPERTY,
)
from conformance.contract.requirements import PARTS, Catalogue
from conformance.ground import stop_signal
from conformance.ground.redaction import write_text
from conformance.reporting import run_plan
from conformance.reporting.allure_overview import RESULT_ID_PROPERTY, write_overview
from conformance.reporting.causes import (
    BLOCKED_PROPERTY,
    CAUSE_PROPERTY,
    Cause,
    blocked_reason,
    cause_lines,
    settle,
    show_blocked_as_broken,
    summarize,
)
from conformance.reporting.interface_coverage import InterfaceCoverage
from conformance.reporting.scope import console_line, scope
from conformance.reporting.skip_reasons import group_skips, untested
from conformance.reporting.summary_markdown import render_markdown
from conformance.reporting.waivers import WAIVED_PROPERTY

__all__ = [
    "OUTCOME_KEY",
    "RunOutcome",
    "SummaryReporter",
    "failure_message",
    "run_outcome_of",
    "write_verdict_only",
]

_OUTCOMES = ("passed", "failed", "skipped", "errors")

# A report property an xdist worker sets when its target stopped answering.
TARGET_DOWN_PROPERTY = "conformance_target_down"


@dataclass(eq=False)  # handed to pytest as a plugin: hashed by identity
class RunOutcome:
    """What a session concluded (read by the CLI for its exit code), and its reporter, which
    the CLI asks for the last word when the run ends abnormally. The command makes one and
    hands it to pytest among its plugins; the session keeps it in ``config.stash``."""

    verdict: str = "incomplete"
    reason: str | None = None
    reporter: SummaryReporter | None = None
    usage_error: str | None = None


OUTCOME_KEY = pytest.StashKey[RunOutcome]()


def run_outcome_of(config: pytest.Config) -> RunOutcome:
    """The session's outcome: the one the command handed over (a fresh one when pytest was
    started otherwise), kept in ``config.stash`` from now until the session's cleanup."""
    outcome = config.stash.get(OUTCOME_KEY, None)
    if outcome is None:
        plugins = config.pluginmanager.list_name_plugin()  # get_plugins() hashes each one
        handed = [p for _, p in plugins if isinstance(p, RunOutcome)]
        outcome = handed[0] if handed else RunOutcome()
        config.stash[OUTCOME_KEY] = outcome
        config.add_cleanup(lambda: config.stash.__delitem__(OUTCOME_KEY))
    return outcome


@dataclass
class _TestResult:
    nodeid: str
    part: str | None = None
    requirements: tuple[str, ...] = ()
    # None until the test has an outcome: a test stopped by an interrupt before its call
    # phase reported is not counted at all (its set-up passing says nothing of it)
    outcome: str | None = None
    message: str = ""
    requests: int = 0
    advisories: list[str] = field(default_factory=list)
    waived: str | None = None
    cause: Cause | None = None  # the defect charged by an answer check (reporting/causes.py)


def failure_message(report: pytest.TestReport) -> str:
    """The failure's message: the conformance clause when there is one, else the crash line."""
    longrepr = report.longrepr
    crash = getattr(getattr(longrepr, "reprcrash", None), "message", None)
    text = crash if crash else str(longrepr)
    # drop the exception's qualified class name ("...failures.ConformanceFailure: ")
    head, sep, rest = text.partition(": ")
    if sep and head.replace(".", "").replace("_", "").isalnum() and " " not in head:
        text = rest
    return text.strip()


def _property(report: pytest.TestReport, name: str) -> list[str]:
    return [str(value) for key, value in report.user_properties if key == name]


class SummaryReporter:
    """Collects test outcomes and writes the summary files at the end of the session."""

    def __init__(
        self,
        report_dir: Path,
        catalogue: Catalogue,
        target: dict[str, Any],
        *,
        outcome: RunOutcome | None = None,
        check: str | None = None,
    ) -> None:
        self.report_dir = report_dir
        self.catalogue = catalogue
        self.target = target
        self.check = check  # what was checked when not the service: "receiver"
        self.results: dict[str, _TestResult] = {}
        self.started_at = datetime.now(UTC)
        self._started = time.monotonic()
        self.not_run_reason: str | None = None  # the target could not be tested
        self.interrupted: str | None = None
        self.expected_tests: int | None = None
        self.expected_ids: list[str] = []  # the tests collected (Allure's "did not run")
        self.allure_results: set[str] = set()  # the Allure results of the tests counted
        self._config: pytest.Config | None = None
        self.baseline: tuple[str, dict[str, Any]] | None = None  # --baseline: path, summary
        self.final: dict[str, Any] | None = None  # the summary written at the session's end
        self.usage_error: str | None = None
        self.notes: list[str] = []  # about the run's environment (a check skipped, a hint)
        self.hints: list[str] = []  # platform-mode hints: summary.md's notes, and the console
        self._forget_hard_stop: Any = lambda: None
        self.coverage = InterfaceCoverage()  # the run's start-up gives it the sinks
        self.outcome = outcome
        if outcome is not None:  # the session's reporter: the command asks it the last word
            outcome.verdict, outcome.reason, outcome.reporter = "incomplete", None, self
            self._forget_hard_stop = stop_signal.on_hard_stop(self.write_stopped_at_once)

    def write_stopped_at_once(self) -> None:
        """The last word of a process stopped at once by a second signal: what is known."""
        self.interrupted = f"stopped at once by a second {stop_signal.stopping() or 'signal'}"
        self.write(self.build())

    def finish_interrupted(self) -> None:
        """The run was stopped and its session could not say so (the interrupt came before
        the session started, or while the reports were written): say it now."""
        if self.not_run_reason is None:
            self.interrupted = self.interrupted or (
                f"stopped by {stop_signal.stopping() or 'an interrupt'} before the end"
            )
        self.write(self.build())
        self.record_outcome()

    def stop_target_down(self, reason: str) -> None:
        """The target cannot be tested (preflight, or it stopped answering)."""
        if self.not_run_reason is None:
            self.not_run_reason = reason
            # under xdist, the other workers stop too instead of waiting on the target
            dsession = self._config.pluginmanager.getplugin("dsession") if self._config else None
            if dsession is not None and not getattr(dsession, "shouldstop", False):
                dsession.shouldstop = f"conformance: {reason}"

    def pytest_sessionstart(self, session: pytest.Session) -> None:
        self._config = session.config
        self.write(self.build(placeholder=True))

    def pytest_collection_finish(self, session: pytest.Session) -> None:
        if not hasattr(session.config, "workerinput") and session.items:
            self.expected_tests = len(session.items)
            self.expected_ids = [item.nodeid for item in session.items]

    def pytest_xdist_node_collection_finished(self, node: Any, ids: list[str]) -> None:
        self.expected_tests = max(self.expected_tests or 0, len(ids))
        self.expected_ids = list(dict.fromkeys([*self.expected_ids, *ids]))

    def pytest_keyboard_interrupt(self, excinfo: pytest.ExceptionInfo[BaseException]) -> None:
        by = str(excinfo.value) or "Ctrl-C"
        self.interrupted = f"stopped by {by} before the end; the tests that did not run are counted"

    def pytest_internalerror(self, excrepr: Any, excinfo: Any) -> None:
        self.interrupted = "the run crashed (internal error)"

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
        self.coverage.add_report(report)
        self.allure_results.update(_property(report, RESULT_ID_PROPERTY))
        for advisory in _property(report, ADVISORY_PROPERTY):
            if advisory not in result.advisories:
                result.advisories.append(advisory)
        for reason in _property(report, TARGET_DOWN_PROPERTY):
            self.stop_target_down(reason)
        for reason in _property(report, WAIVED_PROPERTY):
            result.waived = reason
        for text in _property(report, CAUSE_PROPERTY):
            result.cause = Cause.from_property(text)
        for text in _property(report, BLOCKED_PROPERTY):
            result.cause = Cause.from_property(text)
            result.outcome, result.message = "blocked", blocked_reason(result.cause)
            return
        if report.when == "call":
            if result.waived and report.skipped:
                result.outcome, result.message = "waived", result.waived
            elif report.failed:
                result.outcome, result.message = "failed", failure_message(report)
            elif report.skipped:
                result.outcome, result.message = "skipped", _skip_text(report)
            else:
                result.outcome = "passed"
        elif report.failed:  # setup or teardown
            if result.outcome != "failed":
                result.outcome, result.message = "errors", failure_message(report)
        elif report.skipped and report.when == "setup":
            result.outcome, result.message = "skipped", _skip_text(report)

    @pytest.hookimpl(trylast=True)
    def pytest_sessionfinish(self, session: pytest.Session, exitstatus: int) -> None:
        if exitstatus in (pytest.ExitCode.INTERRUPTED, pytest.ExitCode.INTERNAL_ERROR):
            self.interrupted = self.interrupted or (
                "the run was interrupted"
                if exitstatus == pytest.ExitCode.INTERRUPTED
                else "the run crashed (internal error)"
            )
        if self.interrupted and isinstance(session.shouldstop, str) and not self.not_run_reason:
            self.interrupted = f"{self.interrupted}: {session.shouldstop}"
        self.final = self.build()
        self.write(self.final)
        self.record_outcome()
        self._forget_hard_stop()

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        """The causes, one line each, the verdict and what it covers, then the comparison
        with ``--baseline``."""
        for hint in self.hints:
            terminalreporter.write_line(f"conformance: hint: {hint}")
        found = (self.final or {}).get("causes")
        if found:
            terminalreporter.write_sep("-", f"causes ({len(found)}): what to fix first")
            for line in cause_lines(found):
                terminalreporter.write_line(line)
        if self.final is not None and self.final["verdict"] in ("passed", "failed"):
            terminalreporter.write_sep("=", console_line(self.final), bold=True)
        view = (self.final or {}).get("baseline")
        if view:
            from conformance.reporting.baseline import console_lines

            terminalreporter.write_sep("-", "compared with the baseline")
            for line in console_lines(view):
                terminalreporter.write_line(line)

    def record_outcome(self) -> None:
        """Tell the CLI what this run concluded."""
        summary = self.build()
        if self.outcome is not None:
            self.outcome.verdict = summary["verdict"]
            self.outcome.reason = summary.get("incomplete_reason")

    def write(self, summary: dict[str, Any]) -> None:
        write_text(self.report_dir / "summary.json", json.dumps(summary, indent=2) + "\n")
        write_text(self.report_dir / "summary.md", render_markdown(summary))
        allure_dir = self._config and getattr(self._config.option, "allure_report_dir", None)
        if allure_dir:  # the Allure overview says what summary.json says
            write_overview(Path(allure_dir), summary, self.expected_ids, self.allure_results)
            if summary.get("causes"):
                show_blocked_as_broken(Path(allure_dir))

    def build(self, *, placeholder: bool = False) -> dict[str, Any]:
        """The summary as the output contract defines it, with the run's verdict."""
        results = [r for r in self.results.values() if r.part is not None and r.outcome]
        settle(results)  # a blocked test charged where its defect failed a test
        totals = dict.fromkeys(_OUTCOMES, 0)
        totals["waived"] = 0  # waived failures count here only, in no part's row
        parts = {part: dict.fromkeys(_OUTCOMES, 0) for part in PARTS}
        for result in results:
            outcome = result.outcome or ""
            totals[outcome] = totals.get(outcome, 0) + 1  # "blocked" only when a test was
            if outcome != "waived":
                row = parts[result.part or ""]
                row[outcome] = row.get(outcome, 0) + 1
        waivers = self._waivers()
        ran_parts = sorted({r.part for r in results if r.part})
        not_run = max(0, (self.expected_tests or 0) - len(results))
        verdict, reason = self._verdict(totals, waivers, placeholder=placeholder)
        statuses = self._requirement_statuses(results)
        listed = _listings(results)
        summary: dict[str, Any] = {
            "verdict": verdict,
            "incomplete_reason": reason,
            "not_run": not_run if verdict in ("incomplete", "not_run") else 0,
            "parts_run": ran_parts,
            "interface_version": INTERFACE_VERSION,
            "suite_version": SUITE_VERSION,
            "target": self.target,
            "started_at": self.started_at.isoformat(timespec="seconds").replace("+00:00", "Z"),
            "duration_s": round(time.monotonic() - self._started, 3),
            "totals": totals,
            "parts": parts,
            "requests": sum(r.requests for r in results),
            **({"check": self.check} if self.check else {}),
            "requirements": statuses,
            "failures": listed["failures"],
            "advisories": listed["advisories"],
            "notes": list(self.notes),
            "tests": listed["tests"],
            "skips": listed["skips"],
            "untested": untested(statuses, self.catalogue, ran_parts),
            "waived": listed["waived"],
            "causes": summarize(results),
        }
        self._add_views(summary, results, waivers, placeholder=placeholder)
        return summary

    def _verdict(
        self, totals: dict[str, int], waivers: Any, *, placeholder: bool
    ) -> tuple[str, str | None]:
        """The run's verdict and, when it is not plainly passed or failed, why."""
        if self.usage_error:
            return "usage_error", self.usage_error
        if placeholder:
            return "incomplete", "the run is in progress, or stopped before writing its reports"
        if self.not_run_reason:
            return "not_run", self.not_run_reason
        if self.interrupted or stop_signal.stopping():
            return "incomplete", (
                self.interrupted or f"stopped by {stop_signal.stopping()} before the end"
            )
        if totals["failed"] or totals["errors"] or totals.get("blocked"):
            return "failed", None  # a blocked test's cause failed
        if waivers is not None and waivers.expired:
            return "failed", "expired waiver(s): " + ", ".join(w.subject for w in waivers.expired)
        if not (totals["passed"] or totals["waived"]):
            return "no_tests", "no test ran: none was selected, or every one skipped"
        return "passed", None

    def _add_views(
        self, summary: dict[str, Any], results: list[Any], waivers: Any, *, placeholder: bool
    ) -> None:
        """The members read from elsewhere: waivers, the plan, hints, the baseline."""
        if waivers is not None:
            summary["waivers"] = waivers.view(
                [(r.nodeid, r.requirements) for r in results if r.outcome == "waived"]
            )
        plan = run_plan.view(self._config)
        if plan is not None:
            summary["plan"] = plan
        summary["scope"] = scope(summary)
        if not self.check:  # a check of a platform's side sends nothing to the service
            summary["interface_coverage"] = self.coverage.view()
        if not placeholder:
            from conformance.reporting.mismatch_hints import mismatch_hints

            self.hints = mismatch_hints(summary, self.catalogue)
            summary["notes"] += self.hints  # and on the console (pytest_terminal_summary)
        if self.baseline is not None and not placeholder:
            from conformance.reporting.baseline import compare

            summary["baseline"] = compare(
                self.baseline[0],
                self.baseline[1],
                summary["failures"],
                [{"nodeid": r.nodeid, "outcome": r.outcome, "message": r.message}
                 for r in results],
            )  # fmt: skip

    def _waivers(self) -> Any:
        from conformance.reporting.waivers import PLUGIN_NAME

        if self._config is None:
            return None
        return self._config.pluginmanager.get_plugin(PLUGIN_NAME)

    def _requirement_statuses(self, results: list[_TestResult]) -> list[dict[str, Any]]:
        seen: dict[str, set[str]] = {}
        for result in results:
            charged = result.cause.requirement if result.cause is not None else None
            for rid in result.requirements:
                outcome = result.outcome or ""
                if charged and outcome in ("failed", "errors") and rid != charged:
                    outcome = "blocked"  # a defect charged to another of its requirements
                seen.setdefault(rid, set()).add(outcome)
            if charged:  # charged once, here
                seen.setdefault(charged, set()).add("failed")
        statuses = []
        for requirement in self.catalogue:
            outcomes = seen.get(requirement.id, set())
            if outcomes & {"failed", "errors"}:
                status = "failed"
            elif "waived" in outcomes:
                status = "failed"  # the contract's statuses stay four; the waiver is noted
            elif "passed" in outcomes:
                status = "passed"
            elif outcomes:
                status = "skipped"
            else:
                status = "untested"
            entry: dict[str, Any] = {
                "id": requirement.id,
                "part": requirement.part,
                "status": status,
            }
            if "waived" in outcomes and not outcomes & {"failed", "errors"}:
                entry["waived"] = True
            statuses.append(entry)
        return statuses


def write_verdict_only(report_dir: Path, verdict: str, reason: str | None) -> None:
    """The summary of a run that ended before a session could write one (a usage error, a
    stop during start-up), or the placeholder written when a run claims its folder
    (``reason`` None: in progress). It says this run's verdict, and that no test ran."""
    from conformance.contract.requirements import default_catalogue

    reporter = SummaryReporter(report_dir, default_catalogue(), {})
    if verdict == "usage_error":
        reporter.usage_error = reason
    elif verdict == "incomplete" and reason:
        reporter.interrupted = reason
    elif verdict != "incomplete":
        raise ValueError(f"no summary of its own for verdict {verdict!r}")
    reporter.write(reporter.build(placeholder=reason is None))


def _skip_text(report: pytest.TestReport) -> str:
    longrepr = report.longrepr
    if isinstance(longrepr, tuple) and len(longrepr) == 3:
        return str(longrepr[2]).removeprefix("Skipped: ")
    return str(longrepr)


def _listings(results: list[Any]) -> dict[str, Any]:
    """summary.json's per-test lists: failures, advisories, tests, skips and waived."""
    return {
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
        "tests": [
            {
                "nodeid": r.nodeid,
                "part": r.part,
                "requirements": list(r.requirements),
                "outcome": r.outcome,
            }
            for r in results
        ],
        "skips": group_skips((r.nodeid, r.message) for r in results if r.outcome == "skipped"),
        "waived": [
            {
                "nodeid": r.nodeid,
                "part": r.part,
                "requirements": list(r.requirements),
                "waiver": r.waived,
            }
            for r in results
            if r.outcome == "waived"
        ],
    }
