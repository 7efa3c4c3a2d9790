"""The shape of a run: what runs first, what runs last, what holds the configuration lock,
and what starts early so that waits on the target's clock overlap with the rest.

- **Configuration.** Every conformance test holds its platform's configuration lock from
  set-up to teardown (``locks.py``): exclusive when it changes the configuration (it uses
  ``restore_config``), shared otherwise. No test can therefore see another one's changed
  configuration, under any number of xdist workers, whatever fixtures it forgot to ask
  for. The configuration-changing tests are ordered first, so under xdist they take their
  turns at the start of the run instead of stalling the other workers throughout. Checks
  of PATCH /config itself (validation, partial updates, read-only fields, fees) use
  ``scratch_platform``: the second platform when there is one, whose lock only the tests
  acting as it (``second_client``) share, so they run beside the rest (``platform_locks``).
- **The first changes.** A changer keeps its locks for the next test of its process when
  that one changes the same platforms (``_carry``). Under xdist against a target every
  worker shares, the other workers' first tests wait until the changes the run starts with
  are done (``_start_gate``), instead of making the first change wait for all of them.
- **Waits on the target's clock.** A test marked ``@starts_early("fixture")`` gets that
  session-scoped fixture (a public one, from ``fixtures.py``, so the first test of the
  run can ask for it) set up at the start of the run (the quote or challenge that has
  to expire), and runs last: its wait on ``expiresAt`` then overlaps with everything else
  and with the other such waits. A failure or skip in the early set-up is the test's own:
  the fixture re-raises it when the test asks for it.
- **Long tests.** A test marked ``@runs_long`` (a state machine) runs
  first among the ordinary tests: under xdist a long test handed out last keeps one worker
  busy while the others have nothing left to do.
- **Whole-run readers.** A test marked ``@reads_the_run`` (the report of every forged
  webhook delivery) runs after all the others, so what it reads covers the run (under
  xdist, what its sink received until then).
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import ExitStack, suppress
from typing import Any

import pytest

from conformance.contract.markers import item_part
from conformance.contract.markers import skip_reason as marker_skip_reason
from conformance.exchange.evidence import Exchange
from conformance.ground.locks import platform_lock
from conformance.run.state import STATE_KEY
from conformance.run.worker_signals import (
    SHARED_TARGET_INPUT,
    WORK_STEALING_INPUT,
    WORKER_PIDS_INPUT,
    announce_changes_done,
    changes_done,
    run_stopped,
)

__all__ = [
    "CONFIG_CHANGING_FIXTURE",
    "STARTS_EARLY_MARKER",
    "changes_config",
    "platform_locks",
    "starts_early",
]

CONFIG_CHANGING_FIXTURE = "restore_config"
SCRATCH_PLATFORM_FIXTURE = "scratch_platform"
SECOND_PLATFORM_FIXTURE = "second_client"
STARTS_EARLY_MARKER = "starts_early"
RUNS_LONG_MARKER = "runs_long"
READS_THE_RUN_MARKER = "reads_the_run"
EARLY_DONE_KEY = pytest.StashKey[bool]()
GATE_PASSED_KEY = pytest.StashKey[bool]()
# the run's worker folder, in the process running the changes that come first, until done
ANNOUNCER_KEY = pytest.StashKey[str | None]()
# the locks a changer kept for the next test of this process, which wants the same ones
_LockKey = tuple[str, tuple[tuple[str, bool], ...]]
CARRIED_LOCKS_KEY = pytest.StashKey[tuple[_LockKey, ExitStack] | None]()
# nodeid -> the exchanges its early set-up made (evidence of that test)
EARLY_EVIDENCE_KEY = pytest.StashKey[dict[str, list[Exchange]]]()


def changes_config(item: pytest.Item) -> bool:
    """Whether a test changes its platform's configuration."""
    return CONFIG_CHANGING_FIXTURE in getattr(item, "fixturenames", ())


def starts_early(item: pytest.Item) -> tuple[str, ...]:
    """The fixtures a test wants set up at the start of the run."""
    return tuple(str(name) for mark in item.iter_markers(STARTS_EARLY_MARKER) for name in mark.args)


def _rank(item: pytest.Item, spread_scratch: bool) -> int:
    """The group of ``item`` in a run's order: 0 changes first, 1 long, 2 ordinary, 3 started
    early, 4 reads the run, 5 changes only the second platform (spread among the rest)."""
    if item_part(item) is None:
        return 2
    if any(True for _ in item.iter_markers(READS_THE_RUN_MARKER)):
        return 4
    if changes_config(item):
        return 0
    if SCRATCH_PLATFORM_FIXTURE in getattr(item, "fixturenames", ()):
        return 0 if not spread_scratch else 5  # primary platform when there is no second
    if starts_early(item):
        return 3
    return 1 if any(True for _ in item.iter_markers(RUNS_LONG_MARKER)) else 2


def order_items(items: list[pytest.Item], *, spread_scratch: bool = False) -> None:
    """Configuration-changing tests first, then long tests, the rest, tests that started
    early, and the readers of the whole run last (stable within each group).

    With ``spread_scratch`` (under xdist) the tests that change only the second platform
    (``scratch_platform`` when the profile has one) are spread evenly among the rest instead
    of running first: each holds that platform's lock alone, so side by side at the start
    they kept the workers waiting for each other while the long tests waited behind them
    (a third of a ``-n 8`` run against a target 50 ms away); spread out, one of them runs
    on one worker at a time while the others go on."""
    rank = {id(item): _rank(item, spread_scratch) for item in items}  # once per item
    ranked = sorted(items, key=lambda item: rank[id(item)])
    scratch = [item for item in ranked if rank[id(item)] == 5]
    if scratch:
        ranked = [item for item in ranked if rank[id(item)] != 5]
        ordinary = [i for i, item in enumerate(ranked) if rank[id(item)] == 2]
        step = max(1, len(ordinary) // (len(scratch) + 1))
        # from the last insertion point back, so the earlier indices stay right
        for number in range(len(scratch), 0, -1):
            at = ordinary[min(number * step, len(ordinary) - 1)] if ordinary else len(ranked)
            ranked.insert(at, scratch[number - 1])
    items[:] = ranked


def spread_long_tests(items: list[pytest.Item], workers: int, *, spread_scratch: bool) -> None:
    """Under xdist's work stealing with ``workers`` workers, the long tests of the ordered
    ``items`` moved to the heads of different workers' first shares (``_spread_long``)."""
    if workers > 1:
        ranks = [_rank(item, spread_scratch) for item in items]
        items[:] = _spread_long(items, ranks, workers)


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Last of all (``-k``, ``-m`` and ``--deselect`` have removed what they remove: the
    shares are of what runs), a worker of a work-stealing run spreads the long tests."""
    worker = getattr(config, "workerinput", None) or {}
    state = config.stash.get(STATE_KEY, None)
    if state is None or not worker.get(WORK_STEALING_INPUT):
        return
    spread = state.profile.second is not None
    spread_long_tests(items, int(worker.get("workercount", 0)), spread_scratch=spread)


def worksteal_shares(total: int, workers: int) -> list[int]:
    """The sizes of the contiguous shares xdist's work stealing first hands ``workers`` idle
    workers out of ``total`` tests, in order (each takes what is left over those left)."""
    sizes, left = [], total
    for remaining in range(workers, 0, -1):
        sizes.append(left // remaining)
        left -= sizes[-1]
    return sizes


def _spread_long(ranked: list[Any], ranks: list[int], workers: int) -> list[Any]:
    """``ranked`` (of ``order_items``' ``ranks``) with its long tests (rank 1) moved to the
    heads of different workers' first shares: the second worker's, the third's, ..., the
    first's last (after the changes the run starts with, rank 0), round again if there are
    more long tests than workers. In one share they ran one after another (the four lanes of
    the money-conservation machine: 23 s of a ``-n 16`` run against a target 50 ms away,
    12 s of it alone), and stealing takes from a queue's tail, never its head."""
    longs = [item for item, r in zip(ranked, ranks, strict=True) if r == 1]
    rest = [(item, r) for item, r in zip(ranked, ranks, strict=True) if r != 1]
    if not longs:
        return ranked
    heads: list[list[Any]] = [[] for _ in range(workers)]
    order = [*range(1, workers), 0]
    for number, item in enumerate(longs):
        heads[order[number % workers]].append(item)
    spread: list[Any] = []
    for share, size in enumerate(worksteal_shares(len(ranked), workers)):
        taken = max(0, size - len(heads[share]))
        tail, rest = rest[:taken], rest[taken:]
        # the first share starts with the changes that run first (rank 0)
        cut = next((i for i, (_, r) in enumerate(tail) if r != 0), len(tail))
        spread += [item for item, _ in tail[:cut]] + heads[share]
        spread += [item for item, _ in tail[cut:]]
    return spread + [item for item, _ in rest]


@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> Iterator[Any]:
    state = item.config.stash.get(STATE_KEY, None)
    profile = state.profile if state is not None else None
    if profile is None or item_part(item) is None or profile.base_url is None:
        return (yield)
    locks = platform_locks(item, profile)
    wanted = (profile.base_url, tuple(locks))
    gate = _start_gate(item)
    if gate is not None and changes_config(item):
        item.config.stash[ANNOUNCER_KEY] = gate  # this process runs the first changes
    elif gate is not None:
        _wait_for_the_first_changes(gate, profile.request_timeout)
    carried = item.config.stash.get(CARRIED_LOCKS_KEY, None)
    item.config.stash[CARRIED_LOCKS_KEY] = None
    with ExitStack() as stack:
        if carried is not None and carried[0] == wanted:
            stack.enter_context(carried[1])  # still held since the test before this one
        else:
            if carried is not None:
                carried[1].close()
            # always the primary platform's lock first, then the second's: no two tests
            # can wait for each other
            for client_id, shared in locks:
                stack.enter_context(platform_lock(profile.base_url, client_id, shared=shared))
        result = yield
        if _carry(wanted, nextitem, profile):
            item.config.stash[CARRIED_LOCKS_KEY] = (wanted, stack.pop_all())
        elif (folder := item.config.stash.get(ANNOUNCER_KEY, None)) is not None:
            item.config.stash[ANNOUNCER_KEY] = None
            announce_changes_done(folder)
        return result


def _start_gate(item: pytest.Item) -> str | None:
    """The run's worker folder, when this is the first test of an xdist worker whose run
    starts with a change of the configuration of a target every worker shares; else None.

    Every worker started its first test at once, and the change that runs first (on the
    worker given the first block) waited for all of them to end: with sixteen workers one
    of them is long (a session's set-up), 3 s at 50 ms and 8 s at 150 ms of the run's
    critical path, as the longest test waits behind the changes. Those first tests wait for
    the changes instead (``announce_changes_done``)."""
    config = item.config
    if config.stash.get(GATE_PASSED_KEY, False):
        return None
    config.stash[GATE_PASSED_KEY] = True
    workerinput = getattr(config, "workerinput", None) or {}
    folder = workerinput.get(WORKER_PIDS_INPUT)
    if not folder or not workerinput.get(SHARED_TARGET_INPUT):
        return None
    first = item.session.items[0] if item.session.items else None
    return str(folder) if first is not None and changes_config(first) else None


def _wait_for_the_first_changes(folder: str, bound_s: float) -> None:
    """Until the worker running the changes says they are done, the run stops, or
    ``bound_s`` passed (a worker that died with them: the lock still keeps them apart)."""
    deadline = time.monotonic() + bound_s
    pause = 0.01
    while not changes_done(folder) and run_stopped(folder) is None:
        if time.monotonic() >= deadline:
            return
        time.sleep(pause)
        pause = min(pause * 2, 0.2)


def _carry(wanted: _LockKey, nextitem: pytest.Item | None, profile: Any) -> bool:
    """Whether this process keeps a changer's locks for the next test, which changes the
    same platforms: letting go in between let every other worker start a test, all of which
    the next changer then waited for (2.6 s of a -n 8 run against a target 50 ms away,
    between the two changes of the primary platform that run first)."""
    if nextitem is None or item_part(nextitem) is None or all(s for _, s in wanted[1]):
        return False
    return (profile.base_url, tuple(platform_locks(nextitem, profile))) == wanted


def platform_locks(item: pytest.Item, profile: Any) -> list[tuple[str, bool]]:
    """The configuration locks a test holds, in the order taken: (client id, shared).

    - the primary platform's, by every test: exclusive when it changes that configuration
      (``restore_config``, or ``scratch_platform`` without a second platform);
    - the second platform's, when the profile has one: exclusive for the tests that may
      change it (``scratch_platform``; ``restore_config``, which can be asked for it), shared
      for the tests that act as it (``second_client``), not held by the others.
    """
    names = getattr(item, "fixturenames", ())
    second = profile.second.client_id if profile.second is not None else None
    scratch = SCRATCH_PLATFORM_FIXTURE in names
    held: list[tuple[str, bool]] = []
    if profile.client_id:
        held.append((profile.client_id, not (changes_config(item) or (scratch and not second))))
    if second and second != profile.client_id:
        if changes_config(item) or scratch:
            held.append((second, False))
        elif SECOND_PLATFORM_FIXTURE in names:
            held.append((second, True))
    return held


def _start_early(item: pytest.Item) -> None:
    """At the first conformance test of this process, set up every early fixture of the
    tests this run selected (under xdist each worker does, as any may run them)."""
    config = item.config
    if config.stash.get(EARLY_DONE_KEY, False) or item_part(item) is None:
        return
    config.stash[EARLY_DONE_KEY] = True
    state = config.stash.get(STATE_KEY, None)
    if state is None:
        return
    evidence: dict[str, list[Exchange]] = {}
    config.stash[EARLY_EVIDENCE_KEY] = evidence
    # pytest has no public handle on a test's fixture request outside a fixture; an
    # autouse fixture would do, but it put one more fixture into every test's report
    request: pytest.FixtureRequest = item._request  # type: ignore[attr-defined]
    mine = state.log.take()  # the running test's exchanges so far stay its own
    try:
        for other in item.session.items:
            names = starts_early(other)
            if not names or marker_skip_reason(other, state.profile, config):
                continue
            for name in names:
                # a failure or skip is cached by the fixture: the test itself reports it
                with suppress(Exception, pytest.skip.Exception, pytest.fail.Exception):
                    request.getfixturevalue(name)
            evidence[other.nodeid] = state.log.take()
    finally:
        for exchange in mine:
            state.log.append(exchange)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_setup(item: pytest.Item) -> Iterator[None]:
    """Once the test's own fixtures are set up, start what must start early (first test of
    the process), and give a test that started early the evidence of that set-up back."""
    result = yield
    _start_early(item)
    state = item.config.stash.get(STATE_KEY, None)
    found = item.config.stash.get(EARLY_EVIDENCE_KEY, {}).pop(item.nodeid, None)
    if state is not None and found:
        for exchange in found:
            state.log.append(exchange)
    return result
