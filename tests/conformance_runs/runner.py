"""Run ``conformance run`` in a subprocess and read what it wrote."""

from __future__ import annotations

import atexit
import json
import os
import shlex
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any


@dataclass
class RunResult:
    code: int
    output: str
    summary: dict[str, Any]
    report_dir: Path

    def failed_tests(self) -> dict[str, str]:
        """nodeid -> part of every failed or errored test."""
        return {f["nodeid"]: f["part"] for f in self.summary.get("failures", [])}


# Each run is a fresh interpreter importing pytest, Hypothesis and the whole suite; with
# bytecode caching off (PYTHONDONTWRITEBYTECODE) that compiling is over a third of a short
# fault run. The runs share one bytecode cache outside the tree instead.
# (``tests/conftest.py`` points every self-test process at it too.)
SHARED_PYCACHE = Path(tempfile.gettempdir()) / f"gpsi-conformance-pycache-{os.getuid()}"


def _environment() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPYCACHEPREFIX"] = str(SHARED_PYCACHE)
    return env


# Most of a short fault run's own CPU was a new Python importing pytest, Hypothesis and the
# kit, about 140 times over. Runs are forked instead from a server that imported them once
# per test process (``conformance.run.warm_workers``, as the workers of ``-n`` runs are); the
# command line's own start is tested by the tests that start it as a new Python
# (``tests/test_cli.py``, ``tests/hostile``).
FORK_SERVER_HOLDER = """
import json, sys, threading
from conformance.run import warm_workers
import reference.server.cli  # sandboxes are forked from the server too (warm_sandbox_command)
if "--thread" in sys.argv:  # a process already running a thread must start no server
    threading.Thread(target=threading.Event().wait, daemon=True).start()
warm = warm_workers.start()
print(json.dumps(warm and {"python": warm.python_command(), "server": warm.server_pid,
                           "folder": str(warm.folder)}), flush=True)
sys.stdin.read()
warm_workers.stop()
"""
_warm_python: list[list[str] | None] = []


def hold_fork_server(*args: str) -> tuple[subprocess.Popen[str], dict[str, Any] | None]:
    """A process holding a warm fork server until its standard input closes (the server
    must be forked from a single-threaded process, which a test process is not), and the
    server's launcher command, pid and folder (None where it started none)."""
    holder = subprocess.Popen(
        [sys.executable, "-c", FORK_SERVER_HOLDER, *args], stdin=subprocess.PIPE,
        stdout=subprocess.PIPE, text=True, env=_environment(),
    )  # fmt: skip
    assert holder.stdout is not None
    info: dict[str, Any] | None = json.loads(holder.stdout.readline() or "null")
    return holder, info


def _forking_python() -> list[str] | None:
    """The launcher command of this process's fork server (started at its first use), or
    None where there is none (another OS)."""
    if not _warm_python:
        info = None
        if sys.platform.startswith("linux"):
            holder, info = hold_fork_server()
            assert holder.stdin is not None
            atexit.register(holder.stdin.close)  # the holder stops the server and exits
        _warm_python.append(shlex.split(info["python"]) if info else None)
    return _warm_python[0]


def _command(args: list[str]) -> list[str]:
    forking = _forking_python()
    if forking is None:
        return [sys.executable, "-m", "conformance.run.cli", *args]
    code = (
        f"import sys; sys.argv = {json.dumps(['conformance', *args])}; "
        "from conformance.run.cli import entry; entry()"
    )
    return [*forking, "-c", code]


def warm_sandbox_command(*args: str) -> list[str]:
    """The command of ``python -m reference serve ARGS``, forked from this process's fork
    server (which has imported the reference: a new Python took about 0.5 s of CPU to), or
    that very command where there is no server. The command is the launcher's: a SIGTERM
    ends it, and the server then kills the sandbox (for sandboxes whose state is thrown
    away; a test of the sandbox's own shutdown starts a new Python)."""
    forking = _forking_python()
    if forking is None:
        return [sys.executable, "-m", "reference", *args]
    code = (
        f"import sys; sys.argv = {json.dumps(['reference', *args])}; "
        "from reference.server.cli import run_and_exit; run_and_exit()"
    )
    return [*forking, "-c", code]


def aimed_at(banner: dict[str, Any]) -> tuple[list[str], dict[str, str]]:
    """The ``conformance run`` flags and environment that aim a run at a sandbox started
    apart (its start-up line ``banner``) with what the embedded default takes from that
    line (``embedded.lane_profile``): the credentials (in the environment, never on a
    command line), the webhook key, the adapter, the features, the wallet settings and how its
    lists page."""
    flags = [
        f"--target-url={banner['base_url']}",
        f"--webhook-public-key={banner['webhook_public_key_pem']}",
        f"--adapter={banner['adapter']}",
        f"--features={','.join(banner['features'])}",
        f"--regulated={str(banner['regulated']).lower()}",
        f"--skip-verification-paperwork={str(banner['skip_verification_paperwork']).lower()}",
        f"--wallet-enclave-public-key={banner['wallet_enclave_public_key']}",
        f"--wallet-rp-id={banner['wallet_rp_id']}",
        f"--wallet-origin={banner['wallet_origin']}",
        f"--wallet-oidc-issuers={','.join(banner['wallet_oidc_issuers'])}",
    ]
    if banner.get("pagination"):  # how its lists page, as the embedded default takes it
        pairs = ",".join(f"{key}={name}" for key, name in banner["pagination"].items())
        flags.append(f"--pagination={pairs}")
    env = {
        f"CONFORMANCE_{prefix.upper()}CLIENT_{key.upper()}": banner[f"{prefix}client_{key}"]
        for prefix in ("", "second_", "production_")
        for key in ("id", "secret")
    }
    return flags, env


def conformance_run(
    report_dir: Path, *args: str, timeout: float = 600, env: dict[str, str] | None = None
) -> RunResult:
    command = _command(["run", f"--report-dir={report_dir}", *args])
    done = subprocess.run(
        command, capture_output=True, text=True, timeout=timeout, stdin=subprocess.DEVNULL,
        check=False, env={**_environment(), **(env or {})},
    )  # fmt: skip
    summary_file = report_dir / "summary.json"
    summary = json.loads(summary_file.read_text()) if summary_file.exists() else {}
    return RunResult(done.returncode, done.stdout + done.stderr, summary, report_dir)


def process_gone(pid: int, within_s: float = 10.0) -> bool:
    """Whether process ``pid`` ends and is reaped within ``within_s`` (a zombie is not gone:
    its parent did not wait for it)."""
    deadline = time.monotonic() + within_s
    while time.monotonic() < deadline:
        if not Path(f"/proc/{pid}").exists():
            return True
        time.sleep(0.02)
    return False
