"""Real runs stopped by SIGINT or SIGTERM at many moments, serial and ``-n 2``: each ends
with exit 4, no traceback, summaries that say INCOMPLETE, and the counts of the tests that
finished (the interrupted test never counted as passed), in summary.json, summary.md and
junit.xml alike; a second signal stops at once; no process of the run outlives it.

The moments are sent by ``interrupt_moments`` (a plugin of these tests, loaded with ``-p``)
from inside the run, so each lands where it is meant to. The checks are proved by a run
whose lock release is made to raise while it stops: they must see that run fail.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from pathlib import Path

import pytest

from conformance.reporting.allure_overview import NOT_RUN_STATUS

from .runner import _environment

ROOT = Path(__file__).resolve().parents[2]
RUN_BOUND_S = 90.0


@dataclass
class StoppedRun:
    code: int
    output: str
    report_dir: Path
    interrupted: list[str]  # the nodeids the signal was sent inside (may be empty)
    group_gone: bool
    elapsed_s: float


def stop_a_run(tmp_path: Path, moment: str, *args: str, sabotage: bool = False) -> StoppedRun:
    """Run ``conformance run`` in a process group of its own, stopped at ``moment``."""
    log = tmp_path / "interrupted.log"
    report_dir = tmp_path / "reports"
    marker = f"{tmp_path}-{time.monotonic_ns()}"  # inherited by every process of the run
    env = {
        **_environment(),
        "INTERRUPT_RUN": marker,
        "INTERRUPT_AT": moment,
        "INTERRUPT_LOG": str(log),
        "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]),
    }
    if sabotage:
        env["INTERRUPT_SABOTAGE"] = "lock-release"
    command = [
        sys.executable, "-m", "conformance.run.cli", "run", f"--report-dir={report_dir}",
        *args, "--", "-p", "tests.conformance_runs.interrupt_moments",
    ]  # fmt: skip
    started = time.monotonic()
    run = subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        stdin=subprocess.DEVNULL, env=env, cwd=ROOT, start_new_session=True,
    )  # fmt: skip
    try:
        output, _ = run.communicate(timeout=RUN_BOUND_S)
    finally:
        if run.poll() is None:
            os.killpg(run.pid, signal.SIGKILL)
            run.wait(10)
    elapsed = time.monotonic() - started
    interrupted = [line for line in log.read_text().splitlines() if line] if log.exists() else []
    return StoppedRun(run.returncode, output, report_dir, interrupted, _all_gone(marker), elapsed)


def _all_gone(marker: str, within_s: float = 15.0) -> bool:
    """Whether every process that inherited the run's environment (sandboxes, workers, the
    fork server; some in sessions of their own) has ended."""
    needle = f"INTERRUPT_RUN={marker}\0".encode()
    deadline = time.monotonic() + within_s
    while time.monotonic() < deadline:
        alive = []
        for environ in Path("/proc").glob("[0-9]*/environ"):
            try:
                if needle in environ.read_bytes():
                    alive.append(environ.parent.name)
            except OSError:  # ended meanwhile, or not ours to read
                continue
        if not alive:
            return True
        time.sleep(0.05)
    return False


def junit_cases(report_dir: Path) -> list[ET.Element] | None:
    path = report_dir / "junit.xml"
    if not path.exists():
        return None
    return list(ET.parse(path).getroot().iter("testcase"))


def problems_of(run: StoppedRun, *, at_once: bool = False) -> list[str]:
    """Everything a stopped run's outputs get wrong (empty: it ended as it must)."""
    found = []
    if run.code != 4:
        found.append(f"exit {run.code}, not 4")
    for marker in ("Traceback", "INTERNALERROR", "tearing down after the run"):
        if marker in run.output:
            found.append(f"the console shows {marker!r}")
    if not run.group_gone:
        found.append("a process of the run outlived it")
    if run.elapsed_s > RUN_BOUND_S - 5:
        found.append(f"it took {run.elapsed_s:.0f} s")
    summary_file = run.report_dir / "summary.json"
    if not summary_file.exists():
        return [*found, "no summary.json"]
    summary = json.loads(summary_file.read_text())
    markdown = (run.report_dir / "summary.md").read_text()
    if summary["verdict"] != "incomplete":
        found.append(f"verdict {summary['verdict']!r}")
    if "INCOMPLETE" not in markdown.splitlines()[0] or "PASSED" in markdown:
        found.append(f"summary.md reads {markdown.splitlines()[0]!r}")
    if at_once and "second" not in (summary.get("incomplete_reason") or ""):
        found.append(f"reason {summary.get('incomplete_reason')!r}")
    tests = {t["nodeid"]: t["outcome"] for t in summary["tests"]}
    counted = sum(v for k, v in summary["totals"].items())
    if counted != len(tests):
        found.append(f"totals count {counted} tests, the list {len(tests)}")
    for nodeid in run.interrupted:
        if nodeid in tests:
            found.append(f"the interrupted {nodeid} is counted as {tests[nodeid]}")
    cases = junit_cases(run.report_dir)
    if cases is not None:
        names = [c.get("name") for c in cases]
        if len(cases) != len(tests):
            found.append(f"junit.xml has {len(cases)} test cases, the summary {len(tests)}")
        if not all(names):
            found.append("junit.xml has a nameless test case")
        if any(nodeid.split("::")[-1] in names for nodeid in run.interrupted):
            found.append("junit.xml counts the interrupted test")
    elif not at_once and tests:
        found.append("no junit.xml although tests ran")
    return found + allure_problems(run, summary)


def allure_problems(run: StoppedRun, summary: dict) -> list[str]:
    """Allure agrees with summary.json: as many passed results as it counts passed, none for
    the test the signal landed in but the one saying it did not run, and as many of those
    as summary.json's ``not_run``."""
    folder = run.report_dir / "allure-results"
    if not folder.is_dir():
        return []
    results = [json.loads(p.read_text()) for p in folder.glob("*-result.json")]
    found = []
    passed = sum(1 for r in results if r.get("status") == "passed")
    if passed != summary["totals"]["passed"]:
        found.append(f"Allure has {passed} passed results, summary.json {summary['totals']}")
    for nodeid in run.interrupted:
        name = nodeid.split("::")[-1]
        shown = [r["status"] for r in results if r.get("name") == name]
        if any(r.get("fullName") != nodeid for r in results if r.get("name") == name):
            found.append(f"Allure shows the interrupted {nodeid} as {shown}")
    said = [(r.get("statusDetails") or {}).get("message", "") for r in results]
    not_run = [r for r, message in zip(results, said, strict=True) if message.startswith("did not")]
    if any(r["status"] != NOT_RUN_STATUS for r in not_run):
        found.append("a test that did not run shows in Allure as something else")
    if summary["tests"] and len(not_run) != summary.get("not_run"):
        found.append(
            f"Allure shows {len(not_run)} tests not run, summary.json {summary['not_run']}"
        )
    return found


# moments another case of the list already reaches the same way (CI's minutes): the
# thorough tier (tests/selftest_tier.py) runs them too
THOROUGH = pytest.mark.thorough
SERIAL = ["--parts=endpoints"]
PARALLEL = ["--parts=endpoints", "-n", "2"]


@pytest.mark.parametrize(
    ("moment", "args"),
    [
        ("configure:SIGINT:group", SERIAL),
        ("collection:SIGTERM:controller", SERIAL),
        pytest.param(*("lock:SIGINT:group", SERIAL), marks=THOROUGH),
        pytest.param(*("hypothesis:SIGINT:group:3", SERIAL), marks=THOROUGH),
        pytest.param(*("test:SIGTERM:controller:11", SERIAL), marks=THOROUGH),
        ("test:SIGINT:group:29", SERIAL),
        pytest.param(*("delay:SIGINT:group:5", SERIAL), marks=THOROUGH),
        ("report:SIGINT:group", SERIAL),
        ("scrub:SIGINT:controller", SERIAL),
        ("worker:SIGINT:group:4", PARALLEL),
        pytest.param(*("worker:SIGINT:group:17", PARALLEL), marks=THOROUGH),
        ("lock:SIGINT:group", PARALLEL),
        ("hypothesis:SIGTERM:controller:8", PARALLEL),
        ("delay:SIGINT:group:2", PARALLEL),
        ("report:SIGTERM:group", PARALLEL),
    ],
)
def test_a_stopped_run_says_incomplete_with_true_counts(tmp_path, moment, args):
    run = stop_a_run(tmp_path, moment, *args)
    assert problems_of(run) == [], run.output[-3000:]


@pytest.mark.parametrize("args", [SERIAL, PARALLEL], ids=["serial", "n2"])
def test_a_second_signal_stops_at_once(tmp_path, args):
    run = stop_a_run(tmp_path, "second:SIGINT:group", *args)
    assert problems_of(run, at_once=True) == [], run.output[-3000:]
    assert "stopped at once by a second SIGINT" in run.output


def test_the_checks_see_a_lock_release_that_raises(tmp_path):
    """The proof that the checks above can fail: a lock's release that raises while the
    run stops is seen."""
    run = stop_a_run(tmp_path, "lock:SIGINT:group", *SERIAL, sabotage=True)
    assert problems_of(run) != [], run.output[-3000:]
