"""What the Allure report's overview says of a run: its verdict, its target, the kit.

Allure Report 3 shows the ``environment.properties`` file of a results folder as the
overview's "Metadata" (a pair of columns of short values), and any Allure generator reads
it. The summary writer keeps it in step with ``summary.json``: written with the start-up
placeholder (INCOMPLETE) and again at the end, so a report built from an interrupted run
never reads PASSED. ``conformance report`` also puts the verdict in the report's name.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Collection, Mapping, Sequence
from pathlib import Path
from typing import Any

from conformance.contract.markers import allure_epic
from conformance.contract.requirements import PARTS
from conformance.ground.redaction import write_text
from conformance.reporting.interface_coverage import headline_counts
from conformance.reporting.scope import scope_line, scope_text

__all__ = [
    "ENVIRONMENT_FILE",
    "NOT_RUN_STATUS",
    "RESULT_ID_PROPERTY",
    "VERDICTS",
    "overview",
    "read_overview",
    "result_id",
    "write_overview",
]

ENVIRONMENT_FILE = "environment.properties"
_JUDGED = ("passed", "failed")
_UNJUDGED = "none: the run did not judge its requirements"
# Short verdicts for the overview (summary.md has the long ones).
VERDICTS = {
    "passed": "PASSED",
    "failed": "FAILED",
    "not_run": "INCOMPLETE: the target could not be tested",
    "incomplete": "INCOMPLETE: the run did not finish",
    "no_tests": "NO TEST RAN",
}


def overview(summary: Mapping[str, Any]) -> dict[str, str]:
    """The overview's entries, in the order shown, from a ``summary.json`` dict."""
    totals = summary.get("totals") or {}
    target = summary.get("target") or {}
    counts = ", ".join(
        f"{totals.get(name, 0)} {name}" for name in ("passed", "failed", "skipped", "errors")
    )
    if totals.get("waived"):
        counts += f", {totals['waived']} waived"
    entries = {
        "verdict": VERDICTS.get(str(summary.get("verdict")), "INCOMPLETE"),
        "scope": scope_line(summary) if summary.get("verdict") in _JUDGED else _UNJUDGED,
        "tests": counts,
        # what the run did to the target, where the overview shows it without a click
        **_coverage_entries(summary.get("interface_coverage")),
        "target": str(target.get("base_url") or "the embedded reference sandbox"),
        "environment": str(target.get("environment") or ""),
        "kit": f"gpsi-conformance {summary.get('suite_version')}",
        "interface": str(summary.get("interface_version") or ""),
        "started": str(summary.get("started_at") or ""),
    }
    if scope_text(summary):  # the verdict with what it covers: the report's name
        entries["headline"] = entries["verdict"] + scope_text(summary)
    if summary.get("incomplete_reason"):
        entries["reason"] = str(summary["incomplete_reason"])
    return entries


def _coverage_entries(coverage: Any) -> dict[str, str]:
    """The interface coverage map's counts, and the operations no request reached."""
    if not isinstance(coverage, Mapping):
        return {}
    # a properties key ends at its first blank: each key is one word
    entries = {
        kind.replace("enum values", "listed-values"): text
        for kind, text in headline_counts(coverage).items()
    }
    unsent = [op["operation"] for op in coverage.get("operations") or () if not op["requests"]]
    if unsent:
        entries["unrequested"] = ", ".join(unsent)
    return entries


def _escape(value: str) -> str:
    """A value as a Java properties file holds it (one line; leading blanks kept)."""
    text = value.replace("\\", "\\\\").replace("\n", "\\n").replace("\r", "\\r")
    return "\\" + text if text[:1] in (" ", "\t") else text


def write_overview(
    results_dir: Path,
    summary: Mapping[str, Any],
    expected: Sequence[str] = (),
    counted: Collection[str] | None = None,
) -> None:
    """Write the overview of ``summary`` into the Allure results folder (if it exists), and,
    for a run that did not finish, a result of status :data:`NOT_RUN_STATUS` for each test
    of ``expected`` (the node ids the run collected) that it did not count: Allure's ring
    then shows the share that passed, never a green 100% for an INCOMPLETE run. ``counted``
    (the Allure result ids of the tests the summary counts, :data:`RESULT_ID_PROPERTY`)
    takes away, from a run that did not finish, the results of tests whose report a worker
    wrote but the controller never received: Allure counts what summary.json counts."""
    if not results_dir.is_dir():
        return
    lines = [f"{key}={_escape(value)}" for key, value in overview(summary).items()]
    write_text(results_dir / ENVIRONMENT_FILE, "\n".join(lines) + "\n")
    for stale in results_dir.glob(f"{_NOT_RUN_PREFIX}*"):
        stale.unlink(missing_ok=True)
    if summary.get("verdict") not in ("incomplete", "not_run"):
        return
    if counted is not None:
        for result in results_dir.glob("*-result.json"):
            if result_id(result) not in counted:
                result.unlink(missing_ok=True)
    ran = {test["nodeid"] for test in summary.get("tests") or ()}
    why = f"did not run: {summary.get('incomplete_reason') or 'the run did not finish'}"
    for nodeid in expected:
        if nodeid not in ran:
            _write_not_run(results_dir, nodeid, why)


_NOT_RUN_PREFIX = "conformance-not-run-"
# The report property that carries the id of the Allure result of a test's counted report.
RESULT_ID_PROPERTY = "conformance_allure_result"
# Allure's success rate counts passed against failed and broken only ("unknown" and
# "skipped" are left out, so a stopped run read 100%): a test a stop kept from running is
# "broken", its message saying it did not run; summary.json counts it in ``not_run``.
NOT_RUN_STATUS = "broken"


def result_id(path: Path) -> str | None:
    """The id (``uuid``) an Allure result file holds; its file name is another (random)."""
    try:
        return str(json.loads(path.read_text(encoding="utf-8")).get("uuid"))
    except (OSError, ValueError, AttributeError):
        return None


def _write_not_run(results_dir: Path, nodeid: str, why: str) -> None:
    """One Allure result saying ``nodeid`` did not run (no duration)."""
    key = hashlib.sha256(nodeid.encode()).hexdigest()
    part = nodeid.split("/", 1)[0]
    uuid = f"{key[:8]}-{key[8:12]}-4{key[13:16]}-8{key[17:20]}-{key[20:32]}"
    result = {
        "uuid": uuid,
        "historyId": key[:32],
        "testCaseId": key[:32],
        "name": nodeid.rsplit("::", 1)[-1],
        "fullName": nodeid,
        "status": NOT_RUN_STATUS,
        "statusDetails": {"message": why},
        "labels": [
            {"name": "epic", "value": allure_epic(part)},
            {"name": "feature", "value": "did not run"},
        ]
        if part in PARTS
        else [{"name": "suite", "value": "did not run"}],
    }
    write_text(results_dir / f"{_NOT_RUN_PREFIX}{uuid}-result.json", json.dumps(result) + "\n")


def read_overview(results_dir: Path) -> dict[str, str]:
    """The entries a run wrote (for the report's name); empty when there are none."""
    try:
        text = (results_dir / ENVIRONMENT_FILE).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return {}
    entries: dict[str, str] = {}
    for line in text.splitlines():
        key, sep, value = line.partition("=")
        if sep and not key.startswith(("#", "!")):
            entries[key.strip()] = _unescape(value)
    return entries


def _unescape(value: str) -> str:
    out: list[str] = []
    chars = iter(value)
    for char in chars:
        if char == "\\":
            escaped = next(chars, "")
            out.append({"n": "\n", "r": "\r", "t": "\t"}.get(escaped, escaped))
        else:
            out.append(char)
    return "".join(out)
