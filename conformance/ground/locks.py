"""Cross-process locks, so tests that change one platform's configuration never overlap
with tests that rely on it.

Under pytest-xdist several workers share one target. Every conformance test runs holding
its platform's configuration lock (see ``scheduling.py``): shared by tests that only rely
on the configuration, exclusive by the tests that change it (``restore_config``), from
their set-up to their teardown. The lock is a ``flock`` on a file named after the target
and the platform; it is released when the holder ends, even if it crashes.

Within one process the lock is re-entrant: code that asks for it while the process holds
it already (``config_lock``, ``MoneyCustomers.stable_config``) goes on under the held lock.
"""

from __future__ import annotations

import hashlib
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

try:
    import fcntl
except ImportError:  # pragma: no cover - not POSIX: runs are then serial anyway (no fork)
    fcntl = None  # type: ignore[assignment]

__all__ = ["forget_platform_locks", "platform_lock"]

LOCK_DIR = Path(tempfile.gettempdir()) / "gpsi-conformance-locks"


class _Holding:
    """One platform lock this process holds, and how many holders share it.

    A nested holder keeps a reference to the holding it joined, so its release never looks
    the lock up again: when a run is interrupted, the outermost holder (the test's protocol)
    can let go before a fixture that joined it is torn down, and that late release must
    find nothing to do rather than fail the run's ending.
    """

    def __init__(self) -> None:
        self.holders = 1


# lock file -> this process's holding of it (the outermost holder holds the flock)
_HELD: dict[Path, _Holding] = {}


def _lock_file(base_url: str, client_id: str) -> Path:
    digest = hashlib.sha256(f"{base_url}\n{client_id}".encode()).hexdigest()[:24]
    return LOCK_DIR / f"{digest}.lock"


@contextmanager
def platform_lock(base_url: str, client_id: str, *, shared: bool = False) -> Iterator[None]:
    """Hold the configuration lock of one platform of one target (exclusive unless
    ``shared``); re-entrant within a process, where the outermost holder's mode rules."""
    path = _lock_file(base_url, client_id)
    joined = _HELD.get(path)
    if joined is not None:
        joined.holders += 1
        try:
            yield
        finally:
            joined.holders -= 1
        return
    holding = _HELD[path] = _Holding()
    try:
        if fcntl is None:
            yield
            return
        with _flock(path, shared):
            yield
    finally:
        if _HELD.get(path) is holding:
            del _HELD[path]


@contextmanager
def _flock(path: Path, shared: bool) -> Iterator[None]:
    """The ``flock`` itself, taken through the turnstile, released when the block ends."""
    assert fcntl is not None
    LOCK_DIR.mkdir(parents=True, exist_ok=True)
    mode = fcntl.LOCK_SH if shared else fcntl.LOCK_EX
    with open(path, "a+b") as handle:
        # changers first: a changer waiting for the lock holds the turnstile, which keeps
        # new holders out until it has had its turn (flock alone would let overlapping
        # shared holders keep it waiting for as long as they keep coming)
        with open(path.with_suffix(".turnstile"), "a+b") as turnstile:
            fcntl.flock(turnstile.fileno(), mode)
            fcntl.flock(handle.fileno(), mode)
            fcntl.flock(turnstile.fileno(), fcntl.LOCK_UN)
        try:
            yield
        finally:
            fcntl.flock(handle.fileno(), fcntl.LOCK_UN)


def forget_platform_locks(base_url: str, *client_ids: str) -> None:
    """Remove the lock files of platforms of a target that no longer exists (the embedded
    sandbox of a run that is ending: its port and credentials are never used again), so
    that runs do not leave a pair of files per platform behind in the temp folder."""
    for client_id in client_ids:
        path = _lock_file(base_url, client_id)
        for leftover in (path, path.with_suffix(".turnstile")):
            leftover.unlink(missing_ok=True)
