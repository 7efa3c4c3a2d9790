"""The stop signal of a run: Ctrl-C (SIGINT) and SIGTERM, in every process of it.

The first signal marks the process as stopping and raises ``KeyboardInterrupt`` where the
process is, as Python's own handler does. Code that swallows that exception (a library
turning it into a test failure, a broad ``except`` in a target's client) cannot undo the
mark: the run checks it at every test's edges (``raise_if_stopping``), so the interrupted
test is never counted and the run still ends as INCOMPLETE.

A second signal stops the process at once: the registered last words (write the summary
from what is known, stop child processes) run, each bounded by its own guard, and the
process exits with code 4 without a traceback.

Only the standard library here: the command line installs this before it imports anything
heavy, so that a Ctrl-C during start-up is handled too.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import threading
from collections.abc import Callable, Iterator
from types import FrameType

__all__ = [
    "EXIT_INTERRUPTED",
    "FORWARDED_SIGNAL",
    "deferred",
    "install",
    "on_first_stop",
    "on_hard_stop",
    "raise_if_stopping",
    "reset",
    "stopping",
]

EXIT_INTERRUPTED = 4
_SIGNALS = ("SIGINT", "SIGTERM")
# How a run's controller passes its stop on to its xdist workers: a signal of its own, so
# that a worker that also got the terminal's Ctrl-C does not take it as a second one.
FORWARDED_SIGNAL = "SIGUSR1"


class _Stop:
    """What this process has been told: which signal first, and how many times."""

    def __init__(self) -> None:
        self.signal_name: str | None = None
        self.count = 0
        self.last_words: dict[int, Callable[[], None]] = {}
        self.first_words: dict[int, Callable[[], None]] = {}
        self.deferring = 0


_STOP = _Stop()


def stopping() -> str | None:
    """The name of the signal that stopped this process (``"SIGINT"``), or None."""
    return _STOP.signal_name


def raise_if_stopping() -> None:
    """Raise ``KeyboardInterrupt`` when a stop signal has arrived (a safe point of the run:
    whatever swallowed the first interrupt, the run stops here)."""
    if _STOP.signal_name is not None:
        raise KeyboardInterrupt(_STOP.signal_name)


@contextlib.contextmanager
def deferred(*, raise_after: bool = True) -> Iterator[None]:
    """A block the first signal does not cut short: a test's report handed to every writer
    (JUnit, the summary, Allure count it, or none do), or the run's closing work (tearing
    down, writing the reports, the last scrub, stopping the sandboxes). The interrupt is
    raised when the block ends, unless ``raise_after`` is False (the run is ending anyway;
    the mark says it was stopped). A second signal still stops at once."""
    _STOP.deferring += 1
    try:
        yield
    finally:
        _STOP.deferring -= 1
    if raise_after and not _STOP.deferring:
        raise_if_stopping()


def on_hard_stop(words: Callable[[], None]) -> Callable[[], None]:
    """Register what to do, quickly, when a second signal stops the process at once; the
    returned function unregisters it."""
    return _register(_STOP.last_words, words)


def on_first_stop(words: Callable[[], None]) -> Callable[[], None]:
    """Register what to do, quickly and without raising, when the first signal arrives
    (pass the stop on to the workers); the returned function unregisters it."""
    return _register(_STOP.first_words, words)


def _register(
    table: dict[int, Callable[[], None]], words: Callable[[], None]
) -> Callable[[], None]:
    key = id(words)  # the table holds ``words``: its id stays its own while registered
    table[key] = words
    return lambda: table.pop(key, None) and None


def _handle(signum: int, frame: FrameType | None) -> None:
    name = signal.Signals(signum).name
    _STOP.count += 1
    if _STOP.count == 1:
        _first_stop(name)
    else:
        _hard_stop(name)


def _handle_forwarded(signum: int, frame: FrameType | None) -> None:
    """The controller's stop, passed on: a first stop here, never a second one."""
    if _STOP.count == 0:
        _STOP.count = 1
        _first_stop("SIGINT")


def _first_stop(name: str) -> None:
    _STOP.signal_name = name
    for words in list(_STOP.first_words.values()):
        with contextlib.suppress(Exception):
            words()
    if not _STOP.deferring:
        raise KeyboardInterrupt(name)


def _hard_stop(name: str) -> None:
    # further signals while the last words are said are ignored: they cannot be stopped twice
    for other in _SIGNALS:
        with contextlib.suppress(ValueError, OSError):
            signal.signal(getattr(signal, other), signal.SIG_IGN)
    for words in list(_STOP.last_words.values())[::-1]:
        with contextlib.suppress(Exception):
            words()
    with contextlib.suppress(OSError, ValueError):
        sys.stderr.write(
            f"\nconformance: stopped at once by a second {name} (exit {EXIT_INTERRUPTED}); "
            "the reports say INCOMPLETE\n"
        )
        sys.stderr.flush()
    with contextlib.suppress(OSError, ValueError):
        sys.stdout.flush()
    os._exit(EXIT_INTERRUPTED)


def install() -> None:
    """Handle SIGINT and SIGTERM in this process (the main thread only; elsewhere, and on
    Windows for SIGTERM, nothing changes).

    A run started in the background by a non-interactive shell inherits SIGINT ignored
    (POSIX): a user's or a CI system's ``kill -INT`` would be lost; it is taken back here."""
    if threading.current_thread() is not threading.main_thread():
        return
    for name in _SIGNALS:
        signum = getattr(signal, name, None)
        if signum is None:
            continue
        with contextlib.suppress(ValueError, OSError):
            signal.signal(signum, _handle)
    forwarded = getattr(signal, FORWARDED_SIGNAL, None)
    if forwarded is not None:
        signal.signal(forwarded, _handle_forwarded)


def reset() -> None:
    """Forget any signal received (a new run in the same process: the self-tests)."""
    _STOP.signal_name = None
    _STOP.count = 0
