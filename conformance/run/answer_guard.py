"""The plugin's guard on every test phase: a target's malformed answer ends the test as a
clause failure (``exchange/surprises.py`` says how), with the session's last exchange."""

from __future__ import annotations

from collections.abc import Generator

import pytest

from conformance.exchange.surprises import guard
from conformance.run.state import STATE_KEY


@pytest.hookimpl(wrapper=True)
def pytest_runtest_setup(item: pytest.Item) -> Generator[None, object, object]:
    state = item.config.stash.get(STATE_KEY, None)
    if state is None:
        return (yield)
    return (yield from guard(item, state.log.last))


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Generator[None, object, object]:
    state = item.config.stash.get(STATE_KEY, None)
    if state is None:
        return (yield)
    return (yield from guard(item, state.log.last))


@pytest.hookimpl(wrapper=True)
def pytest_runtest_teardown(item: pytest.Item) -> Generator[None, object, object]:
    state = item.config.stash.get(STATE_KEY, None)
    if state is None:
        return (yield)
    return (yield from guard(item, state.log.last))
