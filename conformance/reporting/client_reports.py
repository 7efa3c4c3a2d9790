"""The reports of a client check (``conformance serve --check-clients DIR``), in the formats
of ``conformance run``: ``summary.json`` (the output contract's keys, plus ``findings``),
``summary.md``, ``junit.xml`` and ``allure-results/``.

Each client rule is one test case (``client-check::<RULE-ID>``): failed with its findings,
passed when it judged requests and found nothing, skipped when no request reached it. Each
finding names its clause and shows its request, secrets redacted by the sandbox and the
files scrubbed again on writing.
"""

from __future__ import annotations

import hashlib
import json
import uuid
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from conformance import INTERFACE_VERSION, SUITE_VERSION
from conformance.contract.markers import allure_epic
from conformance.contract.requirements import PARTS
from conformance.ground.redaction import write_text
from conformance.reporting.allure_overview import write_overview
from conformance.reporting.client_journal import ClientJournal
from conformance.reporting.summary_markdown import render_markdown

__all__ = ["CheckRun", "build_summary", "write_reports"]

NODE_PREFIX = "client-check::"
SUITE_NAME = "client-check"
_OUTCOMES = ("passed", "failed", "skipped", "errors")


@dataclass(frozen=True, slots=True)
class CheckRun:
    """How the check's sandbox ran: when it started, how long, and how it ended (None when it
    stopped as asked; else why the check is incomplete)."""

    started_at: datetime
    duration_s: float
    incomplete: str | None = None


@dataclass(frozen=True, slots=True)
class _Case:
    nodeid: str
    rule: str
    part: str
    title: str
    outcome: str
    message: str
    findings: list[dict[str, Any]]


def _cases(journal: ClientJournal) -> list[_Case]:
    cases = []
    for rule in journal.rules:
        found = [f for f in journal.findings if f.get("rule") == rule.id]
        if found:
            count = f"{len(found)} finding{'s' if len(found) > 1 else ''}"
            lines = [f"{f.get('method')} {f.get('path')}: {f.get('message')}" for f in found]
            outcome, message = "failed", f"{rule.clause}: {count}\n" + "\n".join(lines)
        elif journal.checked[rule.id]:
            outcome, message = "passed", ""
        else:
            outcome = "skipped"
            message = f"no request of the client reached this rule ({rule.title})"
        nodeid = f"{NODE_PREFIX}{rule.id}"
        cases.append(_Case(nodeid, rule.id, rule.part, rule.title, outcome, message, found))
    return cases


def _verdict(journal: ClientJournal, cases: list[_Case], run: CheckRun) -> tuple[str, str | None]:
    if run.incomplete:
        return "incomplete", run.incomplete
    if any(case.outcome == "failed" for case in cases):
        return "failed", None
    if any(case.outcome == "passed" for case in cases):
        return "passed", None
    return "no_tests", "no request of a client was judged: the client sent none"


def build_summary(journal: ClientJournal, run: CheckRun) -> dict[str, Any]:
    """The summary of the check, keyed as ``conformance run``'s, with every finding."""
    cases = _cases(journal)
    totals = dict.fromkeys(_OUTCOMES, 0)
    totals["waived"] = 0
    parts = {part: dict.fromkeys(_OUTCOMES, 0) for part in PARTS}
    for case in cases:
        totals[case.outcome] += 1
        parts.setdefault(case.part, dict.fromkeys(_OUTCOMES, 0))[case.outcome] += 1
    verdict, reason = _verdict(journal, cases, run)
    return {
        "verdict": verdict,
        "incomplete_reason": reason,
        "not_run": 0,
        "parts_run": sorted({case.part for case in cases if case.outcome != "skipped"}),
        "interface_version": INTERFACE_VERSION,
        "suite_version": SUITE_VERSION,
        "check": "clients",
        "target": {"base_url": journal.base_url, "environment": "sandbox"},
        "started_at": run.started_at.isoformat(timespec="seconds").replace("+00:00", "Z"),
        "duration_s": round(run.duration_s, 3),
        "totals": totals,
        "parts": parts,
        "requests": journal.requests,
        "requirements": [
            {"id": case.rule, "part": case.part, "status": case.outcome} for case in cases
        ],
        "failures": [
            {"nodeid": c.nodeid, "part": c.part, "requirements": [c.rule], "message": c.message}
            for c in cases
            if c.outcome == "failed"
        ],
        "findings": [_finding(f) for f in journal.findings],
        "advisories": [_advisory(a) for a in journal.advisories],
        "notes": [
            "a client check: the reference sandbox judged the requests a platform's client "
            "sent it; each rule is one test, each finding names its clause and its request"
        ],
        "tests": [
            {"nodeid": c.nodeid, "part": c.part, "requirements": [c.rule], "outcome": c.outcome}
            for c in cases
        ],
        "skips": _skips([c for c in cases if c.outcome == "skipped"]),
        "untested": [],
        "waived": [],
    }


def _skips(skipped: list[_Case]) -> list[dict[str, Any]]:
    """The skipped rules as one group of ``summary.json``'s ``skips`` (a run's groups are by
    the setting to supply; a rule waits for a request of its kind)."""
    if not skipped:
        return []
    return [
        {
            "cause": "no_request",
            "cause_text": "no request of the client reached the rule",
            "supply": "",
            "reasons": [case.message for case in skipped],
            "tests": [case.nodeid for case in skipped],
            "count": len(skipped),
        }
    ]


def _advisory(record: dict[str, Any]) -> dict[str, Any]:
    nodeid = f"{NODE_PREFIX}{record.get('rule')}"
    return {"nodeid": nodeid, "part": record.get("part"), "message": record.get("message")}


def _finding(record: dict[str, Any]) -> dict[str, Any]:
    keys = ("rule", "clause", "part", "method", "path", "message", "request")
    return {key: record.get(key) for key in keys}


def _markdown(summary: dict[str, Any]) -> str:
    text = render_markdown(summary)
    text = text.replace("- requests sent to the target:", "- requests the client sent:", 1)
    if not summary["findings"]:
        return text + "\n## Findings\n\nNone: every judged request did what the interface asks.\n"
    lines = ["", "## Findings", ""]
    for found in summary["findings"]:
        lines.append(f"- `{found['rule']}` {found['method']} {found['path']}: {found['message']}")
        request = found.get("request") or {}
        for name, value in (request.get("headers") or {}).items():
            lines.append(f"  - header `{name}: {value}`")
        if request.get("body"):
            lines.append(f"  - body `{request['body']}`")
    return text + "\n".join(lines) + "\n"


def _junit(cases: list[_Case], duration_s: float) -> str:
    counts = {o: sum(c.outcome == o for c in cases) for o in _OUTCOMES}
    suites = ET.Element("testsuites")
    suite = ET.SubElement(
        suites,
        "testsuite",
        name=SUITE_NAME,
        tests=str(len(cases)),
        failures=str(counts["failed"]),
        errors="0",
        skipped=str(counts["skipped"]),
        time=f"{duration_s:.3f}",
    )
    for case in cases:
        element = ET.SubElement(
            suite, "testcase", classname=SUITE_NAME, name=case.rule, time="0.000"
        )
        if case.outcome == "failed":
            failure = ET.SubElement(element, "failure", message=case.message.splitlines()[0])
            shown = json.dumps(case.findings, indent=2, ensure_ascii=False)
            failure.text = f"{case.message}\n\n{shown}"
        elif case.outcome == "skipped":
            ET.SubElement(element, "skipped", message=case.message)
    return ET.tostring(suites, encoding="unicode", xml_declaration=True) + "\n"


def _allure(folder: Path, cases: list[_Case], run: CheckRun) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    start = int(run.started_at.timestamp() * 1000)
    stop = start + int(run.duration_s * 1000)
    for case in cases:
        result_id = str(uuid.uuid4())
        attachments = []
        if case.findings:
            source = f"{uuid.uuid4()}-attachment.json"
            write_text(folder / source, json.dumps(case.findings, indent=2, ensure_ascii=False))
            attachments.append({"name": "findings", "source": source, "type": "application/json"})
        status = {"failed": "failed", "passed": "passed"}.get(case.outcome, "skipped")
        result = {
            "uuid": result_id,
            "historyId": hashlib.md5(case.nodeid.encode()).hexdigest(),
            "fullName": case.nodeid,
            "name": f"{case.rule}: {case.title}",
            "status": status,
            "statusDetails": {"message": case.message} if case.message else {},
            "stage": "finished",
            "start": start,
            "stop": stop,
            "labels": [
                {"name": "epic", "value": allure_epic(case.part)},
                {"name": "feature", "value": "client check"},
                {"name": "story", "value": case.rule},
                {"name": "tag", "value": case.rule},
                {"name": "suite", "value": SUITE_NAME},
            ],
            "attachments": attachments,
        }
        write_text(folder / f"{result_id}-result.json", json.dumps(result, indent=2))


def write_reports(report_dir: Path, journal: ClientJournal, run: CheckRun) -> dict[str, Any]:
    """Write every report of the check into ``report_dir``; the summary written."""
    summary = build_summary(journal, run)
    cases = _cases(journal)
    write_text(report_dir / "summary.json", json.dumps(summary, indent=2) + "\n")
    write_text(report_dir / "summary.md", _markdown(summary))
    write_text(report_dir / "junit.xml", _junit(cases, run.duration_s))
    allure = report_dir / "allure-results"
    _allure(allure, cases, run)
    write_overview(allure, summary)
    return summary
