"""A plugin for the warm-worker tests: each process of a run writes down who it is.

Loaded with ``-p tests.plugin.warm_probe``; writes ``<WARM_PROBE_DIR>/<worker id>.json``
(``controller`` for the controlling process) with its pid and its parent's, the base URL
of the target it runs against, and in the controller every embedded sandbox's base URL and
pid. With ``WARM_PROBE_CRASH=<test name>``, the worker running that test dies of SIGKILL
in it.
"""

from __future__ import annotations

import json
import os
import signal
from pathlib import Path

import pytest

from conformance.run.state import STATE_KEY


def pytest_configure(config: pytest.Config) -> None:
    folder = os.environ.get("WARM_PROBE_DIR")
    if not folder:
        return
    workerinput = getattr(config, "workerinput", None)
    name = workerinput["workerid"] if workerinput is not None else "controller"
    record: dict[str, object] = {"pid": os.getpid(), "ppid": os.getppid()}
    state = config.stash.get(STATE_KEY, None)
    if state is not None:
        record["base_url"] = state.profile.base_url
        record["sandboxes"] = [
            {"base_url": lane.profile.base_url, "pid": lane.embedded.process.pid}
            for lane in state.lanes()
            if lane.embedded is not None
        ]
    Path(folder, f"{name}.json").write_text(json.dumps(record), encoding="utf-8")


def pytest_runtest_call(item: pytest.Item) -> None:
    if item.name == os.environ.get("WARM_PROBE_CRASH") and hasattr(item.config, "workerinput"):
        os.kill(os.getpid(), signal.SIGKILL)
