"""A pytest plugin the bench loads into a ``conformance run`` (``-- -p run_timeline``): when
each test started and ended, and on which worker, written as JSON for the critical path.

Only the controlling process writes: under xdist every report reaches it with the worker
that ran the test and the wall-clock start and stop of each phase, so the file holds the
whole run. The path comes from ``BENCH_TIMELINE``; without it the plugin does nothing.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any

import pytest

TIMELINE_ENV = "BENCH_TIMELINE"
_tests: dict[str, dict[str, Any]] = {}
_session: dict[str, float] = {}


@pytest.hookimpl(trylast=True)
def pytest_configure(config: pytest.Config) -> None:
    _session["configured"] = time.time()  # the target checked, the sandbox and sink up


def pytest_sessionstart(session: pytest.Session) -> None:
    _session["session_start"] = time.time()


def pytest_collection_finish(session: pytest.Session) -> None:
    _session["collected"] = time.time()  # a serial run's own collection


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_node_collection_finished(node: Any, ids: list[str]) -> None:
    _session["collected"] = max(_session.get("collected", 0.0), time.time())  # the last worker


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    if os.environ.get("PYTEST_XDIST_WORKER"):
        return  # the controller records the whole run
    node = getattr(report, "node", None)
    worker = getattr(getattr(node, "gateway", None), "id", None) or "main"
    entry = _tests.setdefault(report.nodeid, {"worker": worker, "outcome": "passed"})
    if report.when == "setup":
        entry["start"] = report.start
    entry["stop"] = report.stop
    entry[report.when] = round(report.duration, 4)
    if report.failed or (report.skipped and report.when != "teardown"):
        entry["outcome"] = report.outcome


def pytest_sessionfinish(session: pytest.Session) -> None:
    target = os.environ.get(TIMELINE_ENV)
    if not target or os.environ.get("PYTEST_XDIST_WORKER"):
        return
    _session["session_finish"] = time.time()
    Path(target).write_text(json.dumps({"session": _session, "tests": _tests}))
