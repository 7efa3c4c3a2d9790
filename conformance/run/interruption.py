"""How a run meets Ctrl-C and SIGTERM: the interrupted test is never counted, and the
run's end never crashes (a plugin of every process of an active run).

The signal itself is handled in ``stop_signal``. Here the run checks it at every test's
edges, so that an interrupt swallowed inside a test (Hypothesis turns one that lands while
it replays a failing example into that example's failure) still stops the run there, with
that test's outcome unreported; and the fixtures left set up when the run stops are torn
down before the reports are written, each failure there said in one line instead of ending
the run with a traceback and the reports unwritten. A test's report reaches every writer
(JUnit, the summary, Allure) or none, and the run's closing work (teardown, reports, the
last scrub, stopping the sandboxes) is not cut short by the first signal: it stops the
testing; a second one stops everything at once.
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Generator, Iterator
from pathlib import Path
from typing import Any

import pytest

from conformance.ground import stop_signal
from conformance.ground.redaction import scrub
from conformance.reporting.allure_overview import RESULT_ID_PROPERTY, result_id

__all__ = ["TEARDOWN_PROBLEMS_KEY"]

# What went wrong while the fixtures left set up at the run's end were torn down.
TEARDOWN_PROBLEMS_KEY = pytest.StashKey[list[str]]()


# The reports of the running test, and the id of the result Allure opened for it.
_REPORTS_KEY = pytest.StashKey[list[pytest.TestReport]]()
_ALLURE_KEY = pytest.StashKey[Any]()
# Set on a report once every writer has been handed it.
_LOGGED = "conformance_logged"


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> Iterator[Any]:
    if stop_signal.stopping():
        _drop_allure_result(item)  # Allure may have opened it: it would close it "skipped"
    stop_signal.raise_if_stopping()
    item.stash[_REPORTS_KEY] = []
    try:
        return (yield)
    except BaseException:
        if _counted(item.stash[_REPORTS_KEY]):
            _close_allure_result(item)  # stopped in its teardown: Allure writes it as counted
        else:
            _drop_allure_result(item)
        raise


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_runtest_logfinish(nodeid: str, location: Any) -> Iterator[None]:
    """Allure writes a test's result here: a stop waits until it is written."""
    with stop_signal.deferred():
        return (yield)


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    """Keep each report of the test, and the id of Allure's result for it."""
    report = yield
    item.stash.setdefault(_REPORTS_KEY, []).append(report)
    cache = getattr(item.config.pluginmanager.get_plugin("allure_listener"), "_cache", None)
    uuid = cache.get(item.nodeid) if cache is not None else None
    if uuid is not None:
        item.stash[_ALLURE_KEY] = uuid
        if report.when == "call" or (report.when == "setup" and not report.passed):
            # the summary counts the test by this report: its Allure result is kept
            report.user_properties.append((RESULT_ID_PROPERTY, str(uuid)))
    return report


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> Iterator[None]:
    try:
        return (yield)
    finally:
        stop_signal.raise_if_stopping()


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_runtest_call(item: pytest.Item) -> Iterator[None]:
    try:
        return (yield)
    finally:
        stop_signal.raise_if_stopping()


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_runtest_logreport(report: pytest.TestReport) -> Generator[None, Any, Any]:
    """Every writer counts a report, or none does (an interrupt waits for the last)."""
    with stop_signal.deferred():
        result = yield
        setattr(report, _LOGGED, True)  # every writer has it: a stop now leaves it counted
    return result


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_sessionfinish(session: pytest.Session) -> Iterator[None]:
    """What a stopped run left set up is torn down, and the reports are written whole: the
    first signal waits for them (a second stops at once)."""
    with stop_signal.deferred(raise_after=False):
        _tear_down_what_is_left(session)
        return (yield)


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_unconfigure(config: pytest.Config) -> Iterator[None]:
    """The last scrub, the endpoint put back and the sandboxes stopped, likewise."""
    with stop_signal.deferred(raise_after=False):
        return (yield)


def _counted(reports: list[pytest.TestReport]) -> bool:
    """Whether the writers counted the test: its call's report reached them, or its set-up's
    when that failed or skipped (the summary counts a test on these alone)."""
    return any(
        getattr(r, _LOGGED, False) and (r.when == "call" or (r.when == "setup" and not r.passed))
        for r in reports
    )


def _open_allure_result(item: pytest.Item) -> tuple[Any, Any]:
    """The id of the Allure result allure-pytest holds open for ``item`` (taken from its
    listener, which keeps them by node id until the test's protocol ends), and its logger."""
    listener = item.config.pluginmanager.get_plugin("allure_listener")
    cache = getattr(listener, "_cache", None)
    uuid = cache.pop(item.nodeid) if cache is not None else None
    return uuid, getattr(listener, "allure_logger", None)


def _close_allure_result(item: pytest.Item) -> None:
    """Write the Allure result of a counted test that a stop cut short after its report was
    counted (in its teardown): allure-pytest would write it only at the protocol's end."""
    uuid, logger = _open_allure_result(item)
    if uuid is not None and logger is not None:
        with contextlib.suppress(KeyError):
            logger.close_test(uuid)


def _drop_allure_result(item: pytest.Item) -> None:
    """Forget the Allure result of a test the other writers do not count: the one
    allure-pytest holds open (its listener keeps them by node id until the test's protocol
    ends), or, when it has closed it already, the file it wrote. An interrupted test would
    otherwise show as passed (its set-up passed) or skipped (it had no status)."""
    uuid, logger = _open_allure_result(item)
    if uuid is not None and logger is not None:
        with contextlib.suppress(KeyError):
            logger.drop_test(uuid)
    closed = item.stash.get(_ALLURE_KEY, None)
    folder = getattr(item.config.option, "allure_report_dir", None)
    if closed is not None and folder:
        for result in Path(folder).glob("*-result.json"):
            if result_id(result) == str(closed):
                result.unlink(missing_ok=True)


def _tear_down_what_is_left(session: pytest.Session) -> None:
    """Tear down what a stopped run left set up (pytest would do it next, and let the first
    exception end the run before any report is written)."""
    problems = session.config.stash.setdefault(TEARDOWN_PROBLEMS_KEY, [])
    state = session._setupstate
    # each pass pops a node before running its finalizers, so this ends; an interrupt in a
    # finalizer skips the rest of that node's, the next pass goes on with the others
    while state.stack:
        try:
            state.teardown_exact(None)
        except BaseException as exc:  # an interrupt too: the stop mark keeps it
            text = scrub(f"{type(exc).__name__}: {exc}".strip().rstrip(":"))
            problems.append(text)
            print(f"\nconformance: tearing down after the run: {text}", file=sys.stderr)
