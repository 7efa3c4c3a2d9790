"""Progress lines on the console during long waits, so a person watching a run against a
slow target sees what is awaited and for how long at most.

The plugin installs the writer (``install``); it writes past pytest's output capture to
the process's stderr, which under xdist is the console too. Without a writer, nothing is
written (library use, self-tests).
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable

import pytest

from conformance.ground.redaction import scrub

__all__ = ["LONG_WAIT_S", "QUIET_S", "WaitProgress", "install"]

LONG_WAIT_S = 10.0  # waits that may last longer than this are announced
QUIET_S = 5.0  # waits that usually end at once speak up after this long
REPEAT_S = 30.0  # and reported again this often

_writer: Callable[[str], None] | None = None


def install(config: pytest.Config) -> None:
    """Write progress lines to the console of this process until the run ends."""
    global _writer
    capture = config.pluginmanager.getplugin("capturemanager")

    def write(line: str) -> None:
        if capture is not None:
            with capture.global_and_fixture_disabled():
                sys.stderr.write(f"\n{line}\n")
                sys.stderr.flush()
        else:
            sys.stderr.write(f"{line}\n")

    def uninstall() -> None:
        global _writer
        _writer = None

    _writer = write
    config.add_cleanup(uninstall)


class WaitProgress:
    """Announces one wait when it may last long, then reports it every ``REPEAT_S``."""

    def __init__(self, what: str, at_most_s: float, *, quiet_s: float = 0.0) -> None:
        """``quiet_s``: say nothing unless the wait lasts that long (waits that usually end
        at once, such as a webhook's arrival, speak up only when they do not)."""
        self.what = what
        self.started = time.monotonic()
        self._on = _writer is not None and at_most_s > LONG_WAIT_S
        self._said = False
        self._next = self.started + quiet_s
        if self._on and not quiet_s:
            self._said = True
            self._next = self.started + REPEAT_S
            self._write(f"waiting for {what}: at most {at_most_s:.0f} s")

    def tick(self, left_s: float) -> None:
        """Report the wait (again) when it is time."""
        now = time.monotonic()
        if self._on and now >= self._next:
            self._next = now + REPEAT_S
            still = "still " if self._said else ""
            self._said = True
            self._write(
                f"{still}waiting for {self.what}: {now - self.started:.0f} s so far, "
                f"at most {max(left_s, 0):.0f} s left"
            )

    def done(self) -> None:
        if self._on and self._said:
            self._write(f"done waiting for {self.what} ({time.monotonic() - self.started:.0f} s)")

    @staticmethod
    def _write(text: str) -> None:
        if _writer is not None:
            _writer(scrub(f"conformance: {text}"))
