"""The reports of a client check, from its journal alone: a journal cut short by a kill
still gives every finding it holds, and a folder that cannot be written is a usage error."""

from __future__ import annotations

import json
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

from conformance.reporting.client_journal import JOURNAL_FILE, read_journal
from conformance.reporting.client_reports import CheckRun, write_reports

RULE = {"id": "CLIENT-X", "clause": "§5 Authentication", "part": "auth", "title": "x"}
OTHER = {"id": "CLIENT-Y", "clause": "§2 Document", "part": "endpoints", "title": "y"}


def test_a_journal_cut_short_keeps_its_findings(tmp_path: Path) -> None:
    finding = {"kind": "finding", "rule": "CLIENT-X", "clause": "§5 Authentication",
               "part": "auth", "message": "§5 Authentication: no", "method": "GET",
               "path": "/config", "request": {"headers": {}, "body": ""}}  # fmt: skip
    lines = [
        {"kind": "start", "base_url": "http://127.0.0.1:1/2025-10-13", "rules": [RULE, OTHER]},
        {"kind": "request", "method": "GET", "path": "/config", "checked": ["CLIENT-X"]},
        finding,
    ]
    text = "".join(json.dumps(line) + "\n" for line in lines) + '{"kind": "requ'
    (tmp_path / JOURNAL_FILE).write_text(text, encoding="utf-8")

    summary = write_reports(
        tmp_path, read_journal(tmp_path), CheckRun(datetime.now(UTC), 1.0, "killed")
    )

    assert summary["verdict"] == "incomplete" and summary["incomplete_reason"] == "killed"
    assert [f["message"] for f in summary["findings"]] == ["§5 Authentication: no"]
    assert {r["id"]: r["status"] for r in summary["requirements"]} == {
        "CLIENT-X": "failed",
        "CLIENT-Y": "skipped",
    }
    assert summary["totals"] == {"passed": 0, "failed": 1, "skipped": 1, "errors": 0, "waived": 0}
    assert "# Client check: INCOMPLETE" in (tmp_path / "summary.md").read_text()
    junit = (tmp_path / "junit.xml").read_text()
    assert 'name="CLIENT-X"' in junit and "<failure" in junit and "<skipped" in junit
    results = list((tmp_path / "allure-results").glob("*-result.json"))
    assert sorted(json.loads(p.read_text())["status"] for p in results) == ["failed", "skipped"]


def test_a_folder_that_cannot_be_written_is_a_usage_error(tmp_path: Path) -> None:
    in_the_way = tmp_path / "reports"
    in_the_way.write_text("a file, not a folder")
    done = subprocess.run(
        [sys.executable, "-m", "conformance.run.cli", "serve", "--check-clients", str(in_the_way)],
        capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    assert done.returncode == 2 and "--check-clients" in done.stderr, done.stderr
    assert done.stdout == ""
