"""One client check per report folder: ``serve --check-clients DIR`` holds an exclusive
``flock`` on ``DIR/.client-check.lock`` from before it claims the folder until its reports
are written. A second check on the same folder finds it held and refuses to start (a usage
error), leaving the first one's journal and reports alone instead of overwriting them.
The lock dies with its process, so a check that was killed never leaves the folder locked.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

try:
    import fcntl
except ImportError:  # pragma: no cover - not POSIX: no lock, as the configuration locks
    fcntl = None  # type: ignore[assignment]

from conformance.reporting.report_paths import ReportFolderError

__all__ = ["LOCK_NAME", "FolderInUse", "holding_folder"]

LOCK_NAME = ".client-check.lock"


class FolderInUse(ReportFolderError):
    """Another client check holds the folder."""


@contextmanager
def holding_folder(folder: Path, flag: str) -> Iterator[None]:
    """Hold ``folder`` for this check until the block ends; ``FolderInUse`` when another
    check holds it, ``ReportFolderError`` when the lock file cannot be made."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
        fd = os.open(folder / LOCK_NAME, os.O_RDWR | os.O_CREAT, 0o644)
    except OSError as exc:
        raise ReportFolderError(
            f"conformance: {flag}={str(folder)!r}: cannot write the reports there "
            f"({exc.strerror or type(exc).__name__}). Give a folder you can write."
        ) from exc
    try:
        if fcntl is not None:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                holder = os.pread(fd, 32, 0).decode(errors="replace").strip() or "unknown"
                raise FolderInUse(
                    f"conformance: {flag}={str(folder)!r}: another client check is running on "
                    f"this folder (process {holder}); it would overwrite that check's reports. "
                    "Stop it first, or give another folder."
                ) from None
            os.ftruncate(fd, 0)
            os.pwrite(fd, str(os.getpid()).encode(), 0)
        yield
    finally:
        os.close(fd)  # releases the flock
