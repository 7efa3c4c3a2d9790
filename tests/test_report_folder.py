"""A run owns its report folder from its first moment: whatever an earlier run left there is
gone before anything else happens (a usage error included), the console lists only what
this run wrote, a folder that cannot be written is a usage error naming it, and a baseline
kept in the folder is still read."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from conformance.reporting.report_paths import RUN_ARTEFACTS

from .conformance_runs.runner import conformance_run

EARLIER_SUMMARY = {"verdict": "passed", "totals": {"passed": 470}, "failures": [], "tests": []}


def leave_an_earlier_passed_run(folder: Path) -> None:
    """What a passing run leaves: every artefact, the summary reading PASSED."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "summary.json").write_text(json.dumps(EARLIER_SUMMARY))
    (folder / "summary.md").write_text("# Conformance run: PASSED\n")
    (folder / "junit.xml").write_text("<testsuites><testsuite tests='470'/></testsuites>")
    (folder / "allure-results").mkdir()
    (folder / "allure-results" / "old-result.json").write_text("{}")
    (folder / "evidence").mkdir()
    (folder / "certification.zip").write_bytes(b"PK")
    (folder / "notes-of-the-user.txt").write_text("not the kit's: kept")


def cli(*argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "conformance.run.cli", *argv],
        capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip


def assert_only_this_runs(folder: Path, verdict: str) -> None:
    left = sorted(p.name for p in folder.iterdir())
    assert left == ["notes-of-the-user.txt", "summary.json", "summary.md"], left
    summary = json.loads((folder / "summary.json").read_text())
    assert summary["verdict"] == verdict, summary
    assert summary["totals"]["passed"] == 0
    assert "PASSED" not in (folder / "summary.md").read_text()


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (["--no-such-option"], "unrecognized arguments"),  # the command line does not parse
        (["--parts", "nonsense"], "unknown part"),  # the plugin refuses a setting
        (["--target-url", "http://127.0.0.1:9/2025-10-13"], "client"),  # no credentials
    ],
    ids=["argparse", "plugin", "profile"],
)
def test_a_usage_error_leaves_no_earlier_report_behind(tmp_path, argv, said):
    leave_an_earlier_passed_run(tmp_path)
    done = cli("run", "--report-dir", str(tmp_path), *argv)
    assert done.returncode == 2, done.stdout[-2000:] + done.stderr[-2000:]
    assert said in done.stderr.lower() or said in done.stdout.lower()
    assert_only_this_runs(tmp_path, "usage_error")
    assert "junit.xml" not in done.stdout and "allure-results" not in done.stdout
    summary = json.loads((tmp_path / "summary.json").read_text())
    if argv[0] != "--no-such-option":  # the plugin's message is the summary's reason
        assert said in summary["incomplete_reason"].lower()


def test_a_target_that_cannot_be_tested_leaves_no_earlier_report_behind(tmp_path):
    leave_an_earlier_passed_run(tmp_path)
    result = conformance_run(
        tmp_path, "--target-url=http://127.0.0.1:9/2025-10-13", "--client-id=tok_x",
        "--client-secret=s", "--request-timeout=1",
    )  # fmt: skip
    assert result.code == 3, result.output[-2000:]
    assert_only_this_runs(tmp_path, "not_run")
    assert "JUnit" not in result.output and "Allure" not in result.output


@pytest.mark.parametrize("where", ["a file in its place", "a file in its parent's place"])
def test_a_report_folder_that_cannot_be_written_is_a_usage_error_naming_it(tmp_path, where):
    blocker = tmp_path / "reports"
    blocker.write_text("a file")
    folder = blocker if where == "a file in its place" else blocker / "inner"
    done = cli("run", "--report-dir", str(folder), "--target-url=http://127.0.0.1:9/x",
               "--client-id=tok_x", "--client-secret=s")  # fmt: skip
    assert done.returncode == 2, done.stdout[-2000:] + done.stderr[-2000:]
    assert f"--report-dir={str(folder)!r}" in done.stderr
    assert "cannot write the reports there" in done.stderr
    assert "Traceback" not in done.stderr + done.stdout
    assert "could not run" not in done.stderr  # no request was sent: no preflight ran
    assert blocker.read_text() == "a file"


def test_a_baseline_kept_in_the_report_folder_is_still_read(tmp_path):
    """``--baseline reports/summary.json``: the earlier summary is read before the folder
    is claimed, and this run's summary compares with it."""
    first = conformance_run(tmp_path, "--parts=versioning")
    assert first.code == 0, first.output[-2000:]
    again = conformance_run(
        tmp_path, "--parts=versioning", f"--baseline={tmp_path / 'summary.json'}"
    )
    assert again.code == 0, again.output[-2000:]
    assert again.summary["baseline"]["verdict"] == "passed"
    assert again.summary["baseline"]["started_at"] == first.summary["started_at"]


def test_every_file_a_run_writes_is_one_a_later_run_removes(tmp_path):
    """The claim removes the kit's artefacts by name: a new kind of report file must join
    the list, or a later run would leave it behind as if it were its own."""
    result = conformance_run(tmp_path, "--parts=versioning", "--", "--record-exchanges")
    assert result.code == 0, result.output[-2000:]
    written = sorted(p.name for p in tmp_path.iterdir())
    assert {"evidence", "junit.xml", "allure-results"} <= set(written)
    assert set(written) <= set(RUN_ARTEFACTS), set(written) - set(RUN_ARTEFACTS)
