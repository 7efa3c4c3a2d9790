"""Passing a run's stop on to its xdist workers.

A terminal's Ctrl-C reaches every process of the run, but a ``kill -INT`` or a CI system's
SIGTERM reaches the controller only. Left alone, a worker would go on with its test until
xdist's shutdown interrupts it five seconds later, and tear down after the controller had
already stopped the sandbox it was tearing down against. So the controller passes its first
stop on to each worker at once (``stop_signal.FORWARDED_SIGNAL``, which a worker that also
got the Ctrl-C does not count as a second one), and kills them with it when a second signal
stops everything at once. Each worker leaves its pid in a folder of the run's own.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import tempfile
from pathlib import Path

from conformance.ground import stop_signal

__all__ = [
    "SHARED_TARGET_INPUT",
    "WORKER_PIDS_INPUT",
    "WORK_STEALING_INPUT",
    "WorkerPids",
    "announce_changes_done",
    "changes_done",
    "record_worker_pid",
    "run_stopped",
]

# The workerinput key naming the folder of worker pids.
WORKER_PIDS_INPUT = "conformance_worker_pids"
# The workerinput key saying that every worker of the run tests the one same target.
SHARED_TARGET_INPUT = "conformance_shared_target"
# The workerinput key saying that the controller hands tests out by work stealing (a
# worker's own ``dist`` option reads "no").
WORK_STEALING_INPUT = "conformance_work_stealing"
# In that folder: why the run stops (the target went down on some worker), for the others.
_STOP_FILE = "stop"
# In that folder: the changes of the primary platform that run first are done.
_CHANGES_DONE_FILE = "changes-done"


class WorkerPids:
    """The controller's side: the folder, and what its stop does to the workers."""

    def __init__(self) -> None:
        self.folder = Path(tempfile.mkdtemp(prefix="gpsi-conformance-workers-"))
        self._forget = [
            stop_signal.on_first_stop(self.forward_stop),
            stop_signal.on_hard_stop(self.kill),
        ]

    def pids(self) -> list[int]:
        """The pids of the workers running now (each removes its file when it ends)."""
        found = []
        for path in self.folder.glob("*.pid"):
            with contextlib.suppress(OSError, ValueError):
                found.append(int(path.read_text(encoding="ascii")))
        return [pid for pid in found if pid != os.getpid()]

    def forward_stop(self) -> None:
        self._signal(getattr(signal, stop_signal.FORWARDED_SIGNAL, signal.SIGINT))

    def kill(self) -> None:
        self._signal(getattr(signal, "SIGKILL", signal.SIGTERM))

    def _signal(self, signum: int) -> None:
        for pid in self.pids():
            with contextlib.suppress(OSError):
                os.kill(pid, signum)

    def announce_stop(self, reason: str) -> None:
        """Tell every worker that the run stops (``run_stopped``): each one ends after the
        test it is running, whatever it still has queued. With work stealing a worker holds
        a whole block of tests; it used to learn that the target was down only from its own
        streak of failures."""
        with contextlib.suppress(OSError):
            (self.folder / _STOP_FILE).write_text(reason, encoding="utf-8")

    def close(self) -> None:
        for forget in self._forget:
            forget()
        shutil.rmtree(self.folder, ignore_errors=True)


def record_worker_pid(folder: str, worker_id: str) -> Path:
    """A worker's side: leave this process's pid for the controller; the file to remove
    when the worker ends."""
    path = Path(folder) / f"{worker_id}.pid"
    with contextlib.suppress(OSError):
        path.write_text(str(os.getpid()), encoding="ascii")
    return path


def run_stopped(folder: str) -> str | None:
    """A worker's side: why the controller stopped the run, or None."""
    try:
        return (Path(folder) / _STOP_FILE).read_text(encoding="utf-8") or "stopped"
    except OSError:
        return None


def announce_changes_done(folder: str) -> None:
    """A worker's side: the configuration changes that run first are done (the other
    workers' first tests wait for it: ``scheduling``)."""
    with contextlib.suppress(OSError):
        (Path(folder) / _CHANGES_DONE_FILE).touch()


def changes_done(folder: str) -> bool:
    """Whether a worker said that the changes that run first are done."""
    return (Path(folder) / _CHANGES_DONE_FILE).exists()
