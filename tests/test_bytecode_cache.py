"""``conformance run`` keeps bytecode in a private cache when the environment turned it off."""

from __future__ import annotations

import os
import stat
import sys

import pytest

from conformance.run import bytecode
from conformance.run.bytecode import use_private_bytecode_cache


@pytest.fixture
def no_bytecode(monkeypatch, tmp_path):
    """An environment like a container's: bytecode writing off, the cache home in tmp."""
    monkeypatch.setattr(sys, "dont_write_bytecode", True)
    monkeypatch.setattr(sys, "pycache_prefix", None)
    monkeypatch.setenv("PYTHONDONTWRITEBYTECODE", "1")
    monkeypatch.delenv("PYTHONPYCACHEPREFIX", raising=False)
    # not XDG_CACHE_HOME: a module reading it at import (the Allure cache) would keep tmp_path
    folder = tmp_path / "cache" / "gpsi-conformance" / "pycache"
    monkeypatch.setattr(bytecode, "_cache_root", lambda: folder)
    return folder


def test_bytecode_goes_to_a_private_folder_every_process_of_the_run_inherits(no_bytecode):
    assert use_private_bytecode_cache() == no_bytecode
    assert stat.S_IMODE(no_bytecode.stat().st_mode) == 0o700
    assert sys.pycache_prefix == str(no_bytecode) and not sys.dont_write_bytecode
    assert os.environ["PYTHONPYCACHEPREFIX"] == str(no_bytecode)
    assert "PYTHONDONTWRITEBYTECODE" not in os.environ


def test_a_folder_others_may_write_is_never_used(no_bytecode):
    no_bytecode.mkdir(parents=True)
    no_bytecode.chmod(0o777)
    assert use_private_bytecode_cache() is None
    assert sys.dont_write_bytecode and sys.pycache_prefix is None


def test_a_prefix_the_user_chose_is_kept(no_bytecode, monkeypatch, tmp_path):
    monkeypatch.setenv("PYTHONPYCACHEPREFIX", str(tmp_path / "mine"))
    assert use_private_bytecode_cache() is None
    assert os.environ["PYTHONPYCACHEPREFIX"] == str(tmp_path / "mine")


def test_nothing_changes_where_bytecode_is_written_anyway(no_bytecode, monkeypatch):
    monkeypatch.setattr(sys, "dont_write_bytecode", False)
    assert use_private_bytecode_cache() is None
    assert not no_bytecode.exists()
