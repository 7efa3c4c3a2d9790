"""The console names a test as the kit does (``<part>/<module>.py::<name>``), never by a path
from the working folder: an installed kit's tests live under site-packages, and pytest wrote
``../../lib/python3.x/site-packages/conformance/suites/...`` on every progress and FAILED
line. ``conformance run`` sets pytest's rootdir to the suites; this makes the terminal count
from there too."""

from __future__ import annotations

from typing import Any

import pytest

from conformance.ground.datafiles import SUITES_DIR

__all__ = ["name_tests_from_the_suites"]


def _as_is(nodeid: Any) -> Any:
    return nodeid


def name_tests_from_the_suites(config: pytest.Config) -> None:
    """Progress lines, FAILED lines and locations relative to the suites (a run whose
    rootdir is the suites only: a project's own pytest run keeps pytest's paths)."""
    if config.rootpath != SUITES_DIR:
        return
    reporter = config.pluginmanager.get_plugin("terminalreporter")
    if reporter is not None:
        reporter.startpath = SUITES_DIR
    # pytest names a test from the working folder (Config.cwd_relative_nodeid); the node id
    # is already the kit's name for it
    setattr(config, "cwd_relative_nodeid", _as_is)  # noqa: B010
