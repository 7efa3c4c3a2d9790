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

import sys
from collections.abc import Iterator
from typing import Any

import pytest

from conformance.ground import stop_signal
from conformance.ground.redaction import scrub

__all__ = ["TEARDOWN_PROBLEMS_KEY"]

# What went wrong while the fixtures left set up at the run's end were torn down.
TEARDOWN_PROBLEMS_KEY = pytest.StashKey[list[str]]()


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> Iterator[Any]:
    stop_signal.raise_if_stopping()
    return (yield)


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
def pytest_runtest_logreport(report: pytest.TestReport) -> Iterator[None]:
    """Every writer counts a report, or none does (an interrupt waits for the last)."""
    with stop_signal.deferred():
        return (yield)


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
