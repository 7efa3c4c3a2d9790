"""Embedded runs under xdist: each worker gets a reference sandbox of its own (one per
worker up to the CPUs, or ``--embedded-sandboxes``), worker ``gwN`` the sandbox ``N mod``
their number, and every one of them is stopped at the end."""

from __future__ import annotations

import json
import sys

import pytest

from conformance.ground.profile import TargetProfile
from conformance.run import embedded
from conformance.run.cli import _launch_sandbox_early, build_parser
from conformance.run.state import SessionState

from ..conformance_runs.runner import conformance_run, process_gone


@pytest.fixture(autouse=True)
def _nothing_left_early():
    yield
    embedded.cancel_early()


@pytest.fixture
def two_cpus(monkeypatch):
    monkeypatch.setattr(embedded, "usable_cpus", lambda: 2)


def _embedded(**values) -> TargetProfile:
    return TargetProfile(base_url=None, embedded=True, **values)


@pytest.mark.parametrize(
    ("workers", "values", "expected"),
    [
        (0, {}, 1),  # serial
        (1, {}, 1),
        (2, {}, 2),  # one per worker
        (8, {}, 2),  # up to the CPUs
        (8, {"embedded_sandboxes": 1}, 1),  # shared, as any other target is
        (8, {"embedded_sandboxes": 3}, 3),
        (2, {"embedded_sandboxes": 3}, 2),  # never more than the workers
        (2, {"sink_https": True}, 1),  # one sink with its own CA
        (2, {"sink_public_url": "https://tunnel.example/hook"}, 1),  # one public URL
    ],
)
def test_how_many_sandboxes_an_embedded_run_starts(two_cpus, workers, values, expected):
    assert embedded.sandbox_count(_embedded(**values), workers) == expected


def test_worker_gw_n_joins_lane_n_modulo_their_number():
    first = SessionState(profile=_embedded())
    second = SessionState(profile=_embedded())
    first.other_lanes = [second]
    assert first.lanes() == [first, second]
    assert [first.lane_for(f"gw{n}") for n in range(4)] == [first, second, first, second]
    assert first.lane_for("ssh-host") is first  # not an xdist popen id: the first lane


@pytest.mark.parametrize(
    ("argv", "count"),
    [
        (["run", "-n", "2"], 2),
        (["run", "-n", "auto"], 2),
        (["run", "-n", "2", "--embedded-sandboxes=1"], 1),
        (["run"], 1),
    ],
)
def test_the_command_line_starts_every_sandbox_of_the_run_early(two_cpus, argv, count):
    _launch_sandbox_early(build_parser().parse_args(argv))
    assert len(embedded._early) == count


@pytest.mark.slow
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Linux only (/proc)")
@pytest.mark.parametrize("shared", [False, True], ids=["per-worker", "shared"])
def test_each_worker_runs_against_its_own_sandbox_unless_told_to_share(tmp_path, shared):
    probes = tmp_path / "probes"
    probes.mkdir()
    extra = ["--embedded-sandboxes=1"] if shared else []
    run = conformance_run(
        tmp_path / "reports", "--parts=auth", "-n", "2", *extra,
        "--", "-p", "tests.plugin.warm_probe", env={"WARM_PROBE_DIR": str(probes)},
    )  # fmt: skip
    assert run.code == 0, run.output[-3000:]
    seen = {p.stem: json.loads(p.read_text()) for p in probes.glob("*.json")}
    sandboxes = seen["controller"]["sandboxes"]
    urls = [sandbox["base_url"] for sandbox in sandboxes]
    if shared:
        assert len(urls) == 1
        assert seen["gw0"]["base_url"] == seen["gw1"]["base_url"] == urls[0]
    else:
        assert len(set(urls)) == 2
        assert [seen["gw0"]["base_url"], seen["gw1"]["base_url"]] == urls
    assert seen["controller"]["base_url"] == urls[0]  # the reports name the first
    for sandbox in sandboxes:
        assert process_gone(sandbox["pid"], within_s=5), f"sandbox {sandbox} still runs"
