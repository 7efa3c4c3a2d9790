"""Warm workers: xdist workers forked from a server that has already imported the kit, each
the same as the Python xdist would have started, and nothing of them left after a run."""

from __future__ import annotations

import json
import os
import shlex
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conformance.run import warm_workers

from ..conformance_runs.runner import conformance_run, hold_fork_server, process_gone
from ..test_cli import target_flags

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Linux only")

PROBE = """
import json, os, sys
print(json.dumps({"warm": "conformance.run.plugin" in sys.modules, "cwd": os.getcwd(),
                  "env": os.environ.get("WARM_PROBE"), "line": sys.stdin.readline(),
                  "ppid": os.getppid(), "no_bytecode": sys.dont_write_bytecode,
                  "pycache": sys.pycache_prefix}))
print("to stderr", file=sys.stderr)
"""


@pytest.fixture
def server():
    holder, info = hold_fork_server()
    assert info is not None, "the server did not start"
    info["holder"] = holder
    yield info
    if holder.poll() is None:
        holder.stdin.close()
        holder.wait(timeout=30)


def _launch(info, code, *flags, **options):
    command = [*shlex.split(info["python"]), *flags, "-u", "-c", code]
    return subprocess.run(command, capture_output=True, text=True, timeout=60, **options)


def test_a_worker_is_a_fork_of_the_server_with_the_launchers_streams_folder_and_environment(
    server, tmp_path
):
    env = {**os.environ, "WARM_PROBE": "passed on", "PYTHONDONTWRITEBYTECODE": "1",
           "PYTHONPYCACHEPREFIX": str(tmp_path / "cache")}  # fmt: skip
    done = _launch(server, PROBE, cwd=tmp_path, input="first line\n", env=env)
    assert done.returncode == 0, done.stderr
    seen = json.loads(done.stdout)
    assert seen == {"warm": True, "cwd": str(tmp_path), "env": "passed on",
                    "line": "first line\n", "ppid": server["server"], "no_bytecode": True,
                    "pycache": str(tmp_path / "cache")}  # fmt: skip
    assert done.stderr == "to stderr\n"


@pytest.mark.parametrize(
    ("code", "status"),
    [("import sys; sys.exit(7)", 7), ("import os, signal; os.kill(os.getpid(), signal.SIGKILL)",
                                      128 + signal.SIGKILL), ("raise ValueError('x')", 1)],
)  # fmt: skip
def test_the_launcher_exits_with_the_workers_status(server, code, status):
    assert _launch(server, code).returncode == status


def test_the_server_forks_nothing_but_what_execnet_starts(server):
    done = _launch(server, PROBE, "-X", "dev")  # not xdist's arguments: refused
    assert done.returncode == 1 and done.stdout == ""
    assert _launch(server, PROBE, input="\n").returncode == 0  # and the server goes on


def test_a_worker_whose_launcher_is_killed_is_killed(server):
    launcher = subprocess.Popen(
        [*shlex.split(server["python"]), "-u", "-c",
         "import os, time; print(os.getpid(), flush=True); time.sleep(60)"],
        stdout=subprocess.PIPE, stdin=subprocess.DEVNULL, text=True,
    )  # fmt: skip
    worker = int(launcher.stdout.readline())
    launcher.kill()
    launcher.wait(timeout=10)
    assert process_gone(worker), "the worker outlived its launcher"


def test_without_the_server_a_launcher_starts_an_ordinary_python(server):
    server["holder"].stdin.close()
    server["holder"].wait(timeout=30)
    assert process_gone(server["server"]) and not Path(server["folder"]).exists()
    done = _launch(server, PROBE, input="x\n")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["warm"] is False


def test_a_process_with_threads_starts_no_server():
    holder, info = hold_fork_server("--thread")
    holder.stdin.close()
    assert holder.wait(timeout=60) == 0
    assert info is None


def test_other_specs_and_runs_without_the_server_keep_their_workers():
    assert warm_workers.take() is None  # this process started none
    assert warm_workers.worker_specs(["popen", "ssh=host"]) == ["popen", "ssh=host"]


@pytest.mark.slow
def test_a_parallel_run_forks_its_workers_from_the_server_and_leaves_nothing(tmp_path):
    probes = tmp_path / "probes"
    probes.mkdir()
    run = conformance_run(
        tmp_path / "reports", "--parts=auth", "-n", "2", "--", "-p", "tests.plugin.warm_probe",
        env={"WARM_PROBE_DIR": str(probes)},
    )  # fmt: skip
    assert run.code == 0, run.output[-3000:]
    assert run.summary["verdict"] == "passed"
    seen = {p.stem: json.loads(p.read_text()) for p in probes.glob("*.json")}
    assert sorted(seen) == ["controller", "gw0", "gw1"]
    controller = seen["controller"]["pid"]
    servers = {seen[w]["ppid"] for w in ("gw0", "gw1")}
    assert len(servers) == 1 and controller not in servers  # forked, not started by execnet
    for pid in (*servers, seen["gw0"]["pid"], seen["gw1"]["pid"]):
        assert process_gone(pid, within_s=5), f"process {pid} of the run is still running"


@pytest.mark.slow
def test_a_crashed_worker_is_replaced_from_the_server_and_its_test_fails(tmp_path):
    probes = tmp_path / "probes"
    probes.mkdir()
    crashing = "test_valid_credentials_are_accepted"
    run = conformance_run(
        tmp_path / "reports", "--parts=auth", "-n", "2", "--", "-p", "tests.plugin.warm_probe",
        env={"WARM_PROBE_DIR": str(probes), "WARM_PROBE_CRASH": crashing},
    )  # fmt: skip
    assert run.code == 1, run.output[-3000:]
    assert "replacing crashed worker" in run.output
    assert run.summary["verdict"] == "failed"
    assert [f["nodeid"].rsplit("::", 1)[-1] for f in run.summary["failures"]] == [crashing]
    assert run.summary["totals"]["passed"] > 0  # the rest ran, on the replacement too
    # and the replacement kept the Allure results written before it started
    results = (run.report_dir / "allure-results").glob("*-result.json")
    passed = [r for r in results if json.loads(r.read_text())["status"] == "passed"]
    assert len(passed) == run.summary["totals"]["passed"]
    seen = {p.stem: json.loads(p.read_text()) for p in probes.glob("*.json")}
    workers = sorted(name for name in seen if name != "controller")
    assert len(workers) == 3, workers  # gw0, gw1 and the replacement
    servers = {seen[name]["ppid"] for name in workers}
    assert len(servers) == 1 and seen["controller"]["pid"] not in servers


@pytest.mark.slow
@pytest.mark.parametrize(
    ("signal_name", "to_group"), [("SIGINT", True), ("SIGTERM", True), ("SIGTERM", False)]
)
def test_an_interrupted_parallel_run_is_incomplete_and_leaves_no_process(
    tmp_path, signal_name, to_group
):
    """Ctrl-C reaches the whole process group; a CI system's SIGTERM may reach the command
    alone. Either way the run says INCOMPLETE and every process of it ends."""
    server = subprocess.Popen(
        [sys.executable, "-m", "reference", "serve", "--port", "0",
         "--fault", "events-never-delivered"],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
    )  # fmt: skip
    probes = tmp_path / "probes"
    probes.mkdir()
    run = None
    try:
        info = json.loads(server.stdout.readline())
        run = subprocess.Popen(
            [sys.executable, "-m", "conformance.run.cli", "run", f"--report-dir={tmp_path}",
             *target_flags(info), "--parts=webhooks", "--webhook-timeout=120", "-n", "2",
             "--", "-p", "tests.plugin.warm_probe", "-k", "status_changes_emit_events"],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
            env={**os.environ, "WARM_PROBE_DIR": str(probes)}, start_new_session=True,
        )  # fmt: skip
        # the one selected test waits up to 120 s for a webhook the target never sends
        deadline = time.monotonic() + 60
        while len(list(probes.glob("gw*.json"))) < 2:
            assert time.monotonic() < deadline and run.poll() is None, "the workers never started"
            time.sleep(0.05)
        seen = {p.stem: json.loads(p.read_text()) for p in probes.glob("gw*.json")}
        signum = getattr(signal, signal_name)
        if to_group:
            os.killpg(run.pid, signum)
        else:
            run.send_signal(signum)
        output, _ = run.communicate(timeout=60)
        assert run.returncode == 4, output[-2000:]
        summary = json.loads((tmp_path / "summary.json").read_text())
        assert summary["verdict"] == "incomplete"
        for record in seen.values():
            for pid in (record["pid"], record["ppid"]):  # the worker, the server
                assert process_gone(pid), f"process {pid} of the run is still there"
    finally:
        if run is not None and run.poll() is None:
            os.killpg(run.pid, signal.SIGKILL)
            run.wait(timeout=10)
        server.terminate()
        server.wait(timeout=10)
