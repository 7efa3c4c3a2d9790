"""Loaded into a conformance run (``-p tests.conformance_runs.wait_deadlines``) with
``SELFTEST_WAIT_DEADLINES`` naming a file: each test whose webhook wait ran to its deadline,
or ended at once because an earlier wait for the same thing had (``NotAwaitedAgain``), adds
one JSON line there: ``{nodeid, when, wait: "deadline" | "at once", description, timeout}``.

A wait's failure is raised while its ``SinkTimeout`` is handled (``fail_wait``), so the
timeout is found on the failure's context chain."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from conformance.webhooks.delivery_health import NotAwaitedAgain, WaitNotMade
from conformance.webhooks.sink import SinkRuledOut, SinkTimeout

RECORD = "SELFTEST_WAIT_DEADLINES"  # not CONFORMANCE_*: the kit refuses unknown ones


def _timeout_of(failure: BaseException | None) -> SinkTimeout | None:
    seen: set[int] = set()
    while failure is not None and id(failure) not in seen:
        seen.add(id(failure))
        if isinstance(failure, SinkTimeout) and not isinstance(failure, SinkRuledOut | WaitNotMade):
            return failure
        failure = failure.__cause__ or failure.__context__
    return None


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[Any]) -> Iterator[None]:
    yield
    path = os.environ.get(RECORD)
    found = _timeout_of(call.excinfo.value if call.excinfo else None)
    if not path or found is None:
        return
    line = {
        "nodeid": item.nodeid,
        "when": call.when,
        "wait": "at once" if isinstance(found, NotAwaitedAgain) else "deadline",
        "description": found.description,
        "timeout": found.timeout,
    }
    with Path(path).open("a", encoding="utf-8") as record:
        record.write(json.dumps(line) + "\n")
