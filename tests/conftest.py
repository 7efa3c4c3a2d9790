"""Fixtures every self-test shares."""

from __future__ import annotations

import os
import sys

import pytest

from tests.conformance_runs.runner import SHARED_PYCACHE
from tests.selftest_tier import deselect_thorough, long_tests_first


def _one_bytecode_cache_for_every_process() -> None:
    """Where the environment turned bytecode off (``PYTHONDONTWRITEBYTECODE``, as in this
    project's containers and CI), every Python a self-test starts (a sandbox, a pytester
    run, the command line) compiled pytest, the kit and the reference from source again:
    0.5-1.5 s of CPU each, hundreds of times. They all share one cache instead, outside the
    tree, as ``conformance run`` does for its own processes (``run/bytecode.py``); a prefix
    already chosen is kept. Set at import, before xdist starts the workers that inherit it."""
    if os.environ.get("PYTHONPYCACHEPREFIX") or not sys.dont_write_bytecode:
        return
    SHARED_PYCACHE.mkdir(mode=0o700, exist_ok=True)
    if SHARED_PYCACHE.stat().st_uid != os.getuid() or SHARED_PYCACHE.stat().st_mode & 0o022:
        return  # a folder someone else could write is never loaded from
    os.environ["PYTHONPYCACHEPREFIX"] = str(SHARED_PYCACHE)
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    sys.pycache_prefix = str(SHARED_PYCACHE)
    sys.dont_write_bytecode = False


_one_bytecode_cache_for_every_process()


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    deselect_thorough(config, items)
    long_tests_first(items)
