"""The shape of a run: configuration-changing tests first, early starters and readers of the
whole run last, and the configuration lock shared by the others, exclusive for them,
re-entrant in a process."""

from __future__ import annotations

import json
import subprocess
import sys
import time
import types
from pathlib import Path

import pytest

from conformance.ground import locks
from conformance.ground.locks import forget_platform_locks, platform_lock
from conformance.run.scheduling import (
    _carry,
    _start_gate,
    _wait_for_the_first_changes,
    order_items,
    platform_locks,
    spread_long_tests,
    worksteal_shares,
)
from conformance.run.worker_signals import (
    SHARED_TARGET_INPUT,
    WORKER_PIDS_INPUT,
    WorkerPids,
    announce_changes_done,
)

from .conformance_runs.runner import conformance_run

TARGET = ("http://127.0.0.1:1/2025-10-13", "test-scheduling-client")
SUITES_PARTS_ROOT = Path("/kit/conformance/suites")


class _Item:
    def __init__(self, name: str, part: str | None, fixtures=(), early=(), long=False, reads=False):
        root = SUITES_PARTS_ROOT if part else Path("/elsewhere/tests")
        self.path = root / (part or "") / f"test_{name}.py"
        self.name = name
        self.fixturenames = list(fixtures)
        self._early = early
        self._long = long
        self._reads = reads

    def iter_markers(self, name):
        if name == "starts_early" and self._early:
            yield pytest.mark.starts_early(*self._early).mark
        if name == "runs_long" and self._long:
            yield pytest.mark.runs_long.mark
        if name == "reads_the_run" and self._reads:
            yield pytest.mark.reads_the_run.mark


def test_configuration_changing_tests_run_first_then_long_ones_and_early_starters_last():
    items = [
        _Item("signed", "webhooks", ["webhook_sink"], reads=True),
        _Item("a", "resources", ["money"]),
        _Item("expiry", "errors", ["money"], early=("quote_left_to_expire",)),
        _Item("patch", "endpoints", ["client", "restore_config"]),
        _Item("plain", None, ["tmp_path"]),
        _Item("b", "transitions", ["money"]),
        _Item("machine", "transitions", ["money"], long=True),
        _Item("patch2", "errors", ["restore_config"]),
        _Item("scratch", "errors", ["scratch_platform"]),
    ]
    order_items(items)  # type: ignore[arg-type]
    assert [i.name for i in items] == [
        "patch", "patch2", "scratch", "machine", "a", "plain", "b", "expiry", "signed"
    ]  # fmt: skip


def _try_lock(path: Path, mode: str) -> bool:
    """Whether another process gets the lock at once."""
    code = (
        "import fcntl, sys\n"
        f"h = open({str(path)!r}, 'a+b')\n"
        "try:\n"
        f"    fcntl.flock(h.fileno(), fcntl.LOCK_{mode} | fcntl.LOCK_NB)\n"
        "except BlockingIOError:\n"
        "    sys.exit(1)\n"
    )
    return subprocess.run([sys.executable, "-c", code], check=False).returncode == 0


def test_a_shared_holder_keeps_changers_out_but_not_other_readers():
    path = locks._lock_file(*TARGET)
    with platform_lock(*TARGET, shared=True):
        assert not _try_lock(path, "EX")
        assert _try_lock(path, "SH")
        with platform_lock(*TARGET):  # re-entrant: no deadlock with itself
            assert not _try_lock(path, "EX")
    assert _try_lock(path, "EX")


def test_an_exclusive_holder_keeps_everyone_out():
    path = locks._lock_file(*TARGET)
    with platform_lock(*TARGET):
        assert not _try_lock(path, "SH")
        with platform_lock(*TARGET, shared=True):
            assert not _try_lock(path, "SH")
    assert _try_lock(path, "SH")


def test_a_holder_that_joined_may_let_go_after_the_outermost_one():
    """An interrupted run unwinds a test's protocol (the outermost holder) before the
    fixture that joined its lock is torn down: that late release is quiet, and the lock is
    free for others once the outermost holder let go."""
    path = locks._lock_file(*TARGET)
    outer = platform_lock(*TARGET)
    inner = platform_lock(*TARGET, shared=True)
    outer.__enter__()
    inner.__enter__()
    outer.__exit__(KeyboardInterrupt, KeyboardInterrupt("SIGINT"), None)
    assert _try_lock(path, "EX")
    inner.__exit__(None, None, None)  # no KeyError, nothing left held
    assert path not in locks._HELD
    with platform_lock(*TARGET):
        assert not _try_lock(path, "SH")


class _Profile:
    def __init__(self, second: str | None):
        self.client_id = "primary"
        self.second = None if second is None else type("Credentials", (), {"client_id": second})


@pytest.mark.parametrize(
    ("fixtures", "second", "held"),
    [
        (["money"], "other", [("primary", True)]),
        (["restore_config"], "other", [("primary", False), ("other", False)]),
        (["scratch_platform"], "other", [("primary", True), ("other", False)]),
        (["second_client"], "other", [("primary", True), ("other", True)]),
        # without a second platform, the scratch platform is the primary one
        (["scratch_platform"], None, [("primary", False)]),
        (["second_client"], None, [("primary", True)]),
    ],
)
def test_each_test_holds_the_locks_of_the_platforms_it_relies_on(fixtures, second, held):
    """Primary first, then second: two tests never wait for each other. A test changing
    the second platform's configuration leaves the primary platform's tests running."""
    item = _Item("t", "endpoints", fixtures)
    assert platform_locks(item, _Profile(second)) == held  # type: ignore[arg-type]


def test_the_lock_files_of_a_target_that_is_gone_are_removed():
    target = ("http://127.0.0.1:2/2025-10-13", "test-forget-client")
    with platform_lock(*target, shared=True):
        pass
    path = locks._lock_file(*target)
    assert path.exists() and path.with_suffix(".turnstile").exists()
    forget_platform_locks(target[0], target[1], "never-locked")
    assert not path.exists() and not path.with_suffix(".turnstile").exists()


def test_under_xdist_the_second_platform_s_changers_are_spread_among_the_others():
    items = [_Item(f"o{n}", "resources", ["money"]) for n in range(6)]
    items += [
        _Item("patch", "endpoints", ["client", "restore_config"]),
        _Item("machine", "transitions", ["money"], long=True),
        _Item("s1", "errors", ["scratch_platform"]),
        _Item("s2", "errors", ["scratch_platform"]),
        _Item("expiry", "errors", ["money"], early=("quote_left_to_expire",)),
    ]
    order_items(items, spread_scratch=True)  # type: ignore[arg-type]
    assert [i.name for i in items] == [
        "patch", "machine", "o0", "o1", "s1", "o2", "o3", "s2", "o4", "o5", "expiry"
    ]  # fmt: skip


def test_under_work_stealing_each_long_test_heads_another_worker_s_share():
    items = [_Item(f"o{n}", "resources", ["money"]) for n in range(14)]
    items += [_Item(f"lane{n}", "transitions", ["money"], long=True) for n in range(4)]
    items += [
        _Item("patch", "endpoints", ["client", "restore_config"]),
        _Item("patch2", "endpoints", ["client", "restore_config"]),
    ]
    order_items(items)  # type: ignore[arg-type]
    spread_long_tests(items, 3, spread_scratch=False)  # type: ignore[arg-type]
    names = [i.name for i in items]
    shares = worksteal_shares(len(names), 3)
    assert shares == [6, 7, 7]
    firsts = [names[:6], names[6:13], names[13:]]
    # the second and third workers start with a long test each; the first after its changes
    assert firsts[0][:3] == ["patch", "patch2", "lane2"]
    assert firsts[1][:2] == ["lane0", "lane3"]  # round again: more long tests than workers
    assert firsts[2][0] == "lane1"
    assert sorted(names) == sorted(i.name for i in items) and len(set(names)) == 20


def test_without_workers_the_long_tests_stay_together_after_the_changes():
    items = [_Item("o", "resources"), _Item("l1", "transitions", long=True)]
    items += [_Item("l2", "transitions", long=True)]
    order_items(items)  # type: ignore[arg-type]
    spread_long_tests(items, 1, spread_scratch=False)  # type: ignore[arg-type]
    assert [i.name for i in items] == ["l1", "l2", "o"]


@pytest.mark.slow
def test_in_a_run_under_work_stealing_the_lanes_run_on_different_workers(tmp_path):
    """The whole path: the controller tells its workers that it steals work, each worker
    spreads the long tests over the shares of what is left after ``-k``, and the four lanes
    of the money-conservation machine run two on each of two workers."""
    # twenty tests: in order, the four lanes would all fall in the first worker's share
    run = conformance_run(
        tmp_path, "--parts=transitions", "-n", "2", "--", "-k", "money_is_conserved or execute"
    )
    assert run.code == 0, run.output[-3000:]
    threads: dict[str, list[str]] = {}
    for path in (tmp_path / "allure-results").glob("*-result.json"):
        result = json.loads(path.read_text())
        if "[lane-" in result["name"]:
            thread = next(lb["value"] for lb in result["labels"] if lb["name"] == "thread")
            threads.setdefault(thread, []).append(result["name"])
    assert sorted(len(lanes) for lanes in threads.values()) == [2, 2], threads


class _TxConfig:
    """What xdist's scheduler reads of the configuration: ``-n count``."""

    def __init__(self, count: int) -> None:
        self.count = count

    def getvalue(self, name: str) -> list[str]:
        assert name == "tx"
        return [f"{self.count}*popen"]


class _Worker:
    """What xdist's scheduler asks of a worker: its pending tests are recorded."""

    def __init__(self, number: int) -> None:
        self.shutting_down = False
        self.gateway = types.SimpleNamespace(id=f"gw{number}")
        self.sent: list[int] = []

    def send_runtest_some(self, indices: list[int]) -> None:
        self.sent += indices

    def shutdown(self) -> None:  # nothing left to steal for a worker with a short queue
        self.shutting_down = True


@pytest.mark.parametrize(("total", "count"), [(20, 3), (485, 8), (485, 16), (7, 4)])
def test_the_shares_are_those_xdist_s_work_stealing_hands_out(total, count):
    from xdist.scheduler import WorkStealingScheduling

    scheduler = WorkStealingScheduling(_TxConfig(count), log=None)  # type: ignore[arg-type]
    workers = [_Worker(n) for n in range(count)]
    for worker in workers:
        scheduler.add_node(worker)  # type: ignore[arg-type]
        scheduler.add_node_collection(worker, [f"t{n}" for n in range(total)])  # type: ignore[arg-type]
    scheduler.schedule()
    assert [len(w.sent) for w in workers] == worksteal_shares(total, count)
    assert [w.sent[0] for w in workers if w.sent] == [
        sum(worksteal_shares(total, count)[:n]) for n in range(count) if workers[n].sent
    ]


@pytest.mark.parametrize(
    ("first", "second", "carried"),
    [
        (["restore_config"], ["restore_config"], True),  # two changes of the same platforms
        (["scratch_platform"], ["scratch_platform"], True),
        (["restore_config"], ["money"], False),  # the next one only relies on it
        (["money"], ["money"], False),  # shared locks are never carried
        (["restore_config"], None, False),  # the last test of the process
    ],
)
def test_a_changer_keeps_its_locks_for_a_next_test_that_changes_the_same(first, second, carried):
    profile = _Profile("other")
    profile.base_url = TARGET[0]  # type: ignore[attr-defined]
    item = _Item("a", "endpoints", first)
    nextitem = None if second is None else _Item("b", "endpoints", second)
    key = (TARGET[0], tuple(platform_locks(item, profile)))  # type: ignore[arg-type]
    assert _carry(key, nextitem, profile) is carried  # type: ignore[arg-type]


class _Config:
    def __init__(self, workerinput):
        self.stash = pytest.Stash()
        self.workerinput = workerinput


def _first_test(items, workerinput):
    item = items[1]
    item.config = _Config(workerinput)
    item.session = type("Session", (), {"items": items})()
    return item


@pytest.mark.parametrize(
    ("first", "shared_target", "gated"),
    [
        (["restore_config"], True, True),  # the run starts with a change: wait for it
        (["money"], True, False),  # nothing to wait for
        (["restore_config"], False, False),  # a sandbox per worker: their locks are apart
    ],
)
def test_first_tests_wait_for_the_changes_a_run_starts_with(tmp_path, first, shared_target, gated):
    items = [_Item("a", "endpoints", first), _Item("b", "resources", ["money"])]
    workerinput = {WORKER_PIDS_INPUT: str(tmp_path), SHARED_TARGET_INPUT: shared_target}
    item = _first_test(items, workerinput)
    assert _start_gate(item) == (str(tmp_path) if gated else None)  # type: ignore[arg-type]
    assert _start_gate(item) is None  # type: ignore[arg-type]  (the first test only)


def test_the_wait_ends_when_the_changes_are_done_or_the_run_stops(tmp_path):
    started = time.monotonic()
    announce_changes_done(str(tmp_path))
    _wait_for_the_first_changes(str(tmp_path), 30)
    pids = WorkerPids()
    try:
        pids.announce_stop("the target went down")
        _wait_for_the_first_changes(str(pids.folder), 30)
    finally:
        pids.close()
    assert time.monotonic() - started < 10, "each wait ends on its condition, not its bound"
