"""The plugin's guard on every test phase: a target's malformed answer ends the test as a
clause failure (``exchange/surprises.py`` says how), with the session's last exchange; and a
body check's failure held during the phase and never read is raised at its end
(``exchange/held_checks.py``)."""

from __future__ import annotations

from collections.abc import Generator

import pytest

from conformance.exchange.held_checks import HeldFailures
from conformance.exchange.surprises import guard
from conformance.exchange.unanswered import RunStopping
from conformance.run.state import STATE_KEY


def _guarded(item: pytest.Item, held: HeldFailures, phase: Generator[None, object, object]
             ) -> Generator[None, object, object]:  # fmt: skip
    """The phase, holding body failures while it runs; one never read fails it at its end."""
    held.begin()
    try:
        outcome = yield from phase
    except RunStopping as stopping:  # out of a Hypothesis test at once: its failure
        raise stopping.failure from None
    finally:
        unread = held.end()
    if unread is not None:
        raise unread  # the test passed without reading a body whose check failed
    return outcome


@pytest.hookimpl(wrapper=True)
def pytest_runtest_setup(item: pytest.Item) -> Generator[None, object, object]:
    state = item.config.stash.get(STATE_KEY, None)
    if state is None:
        return (yield)
    held = state.exchange.held
    return (yield from _guarded(item, held, guard(item, state.log.last, held.first_raised)))


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Generator[None, object, object]:
    state = item.config.stash.get(STATE_KEY, None)
    if state is None:
        return (yield)
    held = state.exchange.held
    return (yield from _guarded(item, held, guard(item, state.log.last, held.first_raised)))


@pytest.hookimpl(wrapper=True)
def pytest_runtest_teardown(item: pytest.Item) -> Generator[None, object, object]:
    state = item.config.stash.get(STATE_KEY, None)
    if state is None:
        return (yield)
    held = state.exchange.held
    return (yield from _guarded(item, held, guard(item, state.log.last, held.first_raised)))
