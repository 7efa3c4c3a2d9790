"""A pytest plugin for the interrupt self-tests (``-p tests.conformance_runs.interrupt_moments``):
it sends the run a stop signal at a named moment, as a terminal or a CI system would.

``INTERRUPT_AT`` = ``moment:signal:target[:seed]`` with

- moment: ``configure`` (session set-up done: sandbox, preflight, sink), ``delay`` (a
  seeded time after it, landing anywhere), ``collection``,
  ``lock`` (at the start of a test holding the configuration lock exclusively), ``hypothesis``
  (inside a Hypothesis test), ``worker`` (from an xdist worker, between its tests),
  ``test`` (inside the Nth test, N from the seed), ``report`` (while the reports are
  written), ``scrub`` (the last pass over the report folder), ``second`` (a second signal
  50 ms after the first, inside a test holding the lock);
- signal: ``SIGINT`` or ``SIGTERM``;
- target: ``group`` (the whole process group, as a terminal's Ctrl-C) or ``controller``.

When the signal is sent, the nodeid of the test whose call the sending process is in (or
an empty line) is appended to ``INTERRUPT_LOG``: that test must not be counted. With
``INTERRUPT_SABOTAGE=lock-release``, releasing a configuration lock while the run stops
raises: the self-test's checks must then see the run fail to end cleanly.
"""

from __future__ import annotations

import contextlib
import inspect
import os
import random
import signal
import threading
from collections.abc import Iterator
from typing import Any

import pytest

_SPEC = os.environ.get("INTERRUPT_AT", "")
MOMENT, SIGNAL_NAME, TARGET, SEED = ([*_SPEC.split(":"), "", "", "", "0"])[:4]
_SENT = threading.Event()
_COUNT = [0]
# the test whose call this process is in, if any (read when the signal is sent)
_IN_CALL: list[str] = []
# held from naming the test in call to sending the signal, and to leave the call: a call that
# ended in between would be named though it finished (and was rightly counted)
_CALL_LOCK = threading.Lock()


def _send(config: pytest.Config, *, twice: bool = False) -> None:
    if _SENT.is_set():
        return
    _SENT.set()
    signalled_here = TARGET != "controller" or not _is_worker(config)
    signum = getattr(signal, SIGNAL_NAME or "SIGINT")
    controller = config.workerinput["controller_pid"] if _is_worker(config) else os.getpid()

    def fire() -> None:
        if TARGET == "controller":
            os.kill(controller, signum)
        else:
            os.killpg(os.getpgrp(), signum)

    with _CALL_LOCK:
        _log(_IN_CALL[0] if _IN_CALL and signalled_here else "")
        fire()
    if twice:
        threading.Timer(0.05, fire).start()


def _is_worker(config: pytest.Config) -> bool:
    return hasattr(config, "workerinput")


def _log(nodeid: str) -> None:
    path = os.environ.get("INTERRUPT_LOG")
    if path:
        with open(path, "a", encoding="utf-8") as log:
            log.write(nodeid + "\n")


def _later(config: pytest.Config, delay: float, twice: bool = False) -> None:
    threading.Timer(delay, _send, args=(config,), kwargs={"twice": twice}).start()


@pytest.hookimpl(trylast=True)
def pytest_configure(config: pytest.Config) -> None:
    if _SABOTAGE:
        _sabotage_lock_release()
    if MOMENT == "scrub" and not _is_worker(config):
        from conformance.ground import redaction

        scrub_tree = redaction.scrub_tree

        def interrupted_scrub(folder: Any) -> Any:
            _send(config)
            return scrub_tree(folder)

        redaction.scrub_tree = interrupted_scrub  # type: ignore[assignment]
    if MOMENT == "configure" and not _is_worker(config):
        _send(config)
    if MOMENT == "delay" and not _is_worker(config):
        _later(config, 0.1 + random.Random(SEED).random())  # within any run of the part


def pytest_configure_node(node: Any) -> None:
    node.workerinput["controller_pid"] = os.getpid()


def pytest_collection_finish(session: pytest.Session) -> None:
    if MOMENT == "collection" and not _is_worker(session.config):
        _send(session.config)


@pytest.hookimpl(wrapper=True, trylast=True)
def pytest_runtest_call(item: pytest.Item) -> Iterator[None]:
    config = item.config
    _COUNT[0] += 1
    names = getattr(item, "fixturenames", ())
    _IN_CALL[:] = [item.nodeid]
    try:
        if MOMENT == "lock" and "restore_config" in names:
            _send(config)  # at once: inside the held lock
        elif MOMENT == "second" and "restore_config" in names:
            _later(config, 0.01, twice=True)  # the second while the first is being handled
        elif MOMENT == "hypothesis" and _uses_hypothesis(item) and not _SENT.is_set():
            with _signal_at_request(config, 1 + int(SEED) % 8):
                return (yield)
        elif MOMENT == "test" and _COUNT[0] == 1 + int(SEED) % 40 and not _is_worker(config):
            _later(config, random.Random(SEED).random() * 0.05)
        elif MOMENT == "worker" and _is_worker(config) and _COUNT[0] == 1 + int(SEED) % 20:
            _send(config)
        return (yield)
    finally:
        with _CALL_LOCK:
            _IN_CALL.clear()


def _uses_hypothesis(item: pytest.Item) -> bool:
    """Whether the test runs Hypothesis (the suites' tests call an inner ``@given``)."""
    try:
        return "@given" in inspect.getsource(item.obj)  # type: ignore[attr-defined]
    except (AttributeError, OSError, TypeError):
        return False


@contextlib.contextmanager
def _signal_at_request(config: pytest.Config, nth: int) -> Iterator[None]:
    """Send the signal as the test makes its ``nth`` request to the target: inside one of
    Hypothesis's examples."""
    from conformance.exchange.client import TargetClient

    original = TargetClient.request
    count = [0]

    def counting(self: Any, *args: Any, **kwargs: Any) -> Any:
        count[0] += 1
        if count[0] == nth:
            _send(config)
        return original(self, *args, **kwargs)

    TargetClient.request = counting  # type: ignore[method-assign]
    try:
        yield
    finally:
        TargetClient.request = original  # type: ignore[method-assign]


@pytest.hookimpl(tryfirst=True)
def pytest_sessionfinish(session: pytest.Session) -> None:
    if MOMENT == "report" and not _is_worker(session.config):
        _send(session.config)


_SABOTAGE = os.environ.get("INTERRUPT_SABOTAGE") == "lock-release"


def _sabotage_lock_release() -> None:
    """Make releasing a configuration lock raise once the run is stopping."""
    from conformance.ground import locks, stop_signal

    original = locks.platform_lock

    @contextlib.contextmanager
    def raising_release(*args: Any, **kwargs: Any) -> Iterator[None]:
        with original(*args, **kwargs):
            try:
                yield
            finally:
                if stop_signal.stopping():
                    raise RuntimeError("sabotaged: the lock's release raised")

    locks.platform_lock = raising_release  # type: ignore[assignment]
    import conformance.run.scheduling as scheduling

    scheduling.platform_lock = raising_release  # type: ignore[attr-defined]
