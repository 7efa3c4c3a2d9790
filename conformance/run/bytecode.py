"""A private bytecode cache for a run, so no process of it compiles the kit again.

Where ``PYTHONDONTWRITEBYTECODE`` is set (common in containers and CI images), every
process of a run (the controller, each xdist worker, the embedded sandbox) compiled the
kit's modules and pytest rewrote the asserts of every suite module anew: about 1.5 s of
CPU per process, most of what an xdist worker costs. ``conformance run`` then keeps
bytecode in a cache directory of the user's own, outside the source tree
(``PYTHONPYCACHEPREFIX``), which every process of the run inherits. A prefix the user set
is kept as it is.
"""

from __future__ import annotations

import os
import stat
import sys
from pathlib import Path

__all__ = ["use_private_bytecode_cache"]


def _cache_root() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "gpsi-conformance" / "pycache"


def _owned_and_private(folder: Path) -> bool:
    """Only a folder this user owns, that nobody else may write, may hold code we load."""
    try:
        info = folder.stat()
    except OSError:
        return False
    getuid = getattr(os, "getuid", None)
    owner_ok = getuid is None or info.st_uid == getuid()
    return owner_ok and not info.st_mode & (stat.S_IWGRP | stat.S_IWOTH)


def use_private_bytecode_cache() -> Path | None:
    """Write and read bytecode under the user's cache folder when the environment turned
    bytecode writing off; the folder used, or None when nothing changed."""
    if not sys.dont_write_bytecode or os.environ.get("PYTHONPYCACHEPREFIX"):
        return None
    folder = _cache_root()
    try:
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    except OSError:
        return None
    if not _owned_and_private(folder):
        return None
    sys.pycache_prefix = str(folder)
    sys.dont_write_bytecode = False
    os.environ["PYTHONPYCACHEPREFIX"] = str(folder)
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    return folder
