"""Cross-process locks, so tests that change one platform's configuration take turns.

Under pytest-xdist several workers share one target. A test that changes the platform
configuration holds the platform's lock from its snapshot to its restore, so no other
such test sees its intermediate state. The lock is a ``flock`` on a file named after the
target and the platform; it is released when the holder ends, even if it crashes.
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

__all__ = ["platform_lock"]

LOCK_DIR = Path(tempfile.gettempdir()) / "gpsi-conformance-locks"


@contextmanager
def platform_lock(base_url: str, client_id: str) -> Iterator[None]:
    """Hold the configuration lock of one platform of one target."""
    if fcntl is None:
        yield
        return
    LOCK_DIR.mkdir(parents=True, exist_ok=True)
    digest = hashlib.sha256(f"{base_url}\n{client_id}".encode()).hexdigest()[:24]
    with open(LOCK_DIR / f"{digest}.lock", "a+b") as handle:
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle.fileno(), fcntl.LOCK_UN)
