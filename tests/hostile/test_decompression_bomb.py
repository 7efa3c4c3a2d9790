"""A target whose answers are deflate bombs (1.1 MB inflating to 1.1 GiB): the kit holds its
10 MiB cap on decompressed bytes wherever it reads an answer (the suite's client, the
reference adapter), the run's peak memory stays far below the inflated size, and the bomb
is one clear failure, not one per test.

Peak memory is measured as the kernel reports it: the largest resident set size of any
process of the run (``ru_maxrss`` of the waited-for children of a wrapper process), so the
pytest run and its xdist workers, each read separately, are all covered.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import time
import tracemalloc
from pathlib import Path

from conformance.exchange.inflate import PIECE

from ..conformance_runs.runner import RunResult, _environment
from .server import BOMB_INFLATED, HostileTarget, deflate_bomb
from .test_client_hostile import make_client, read_everything
from .test_runs_hostile import EXIT_FAILED, EXIT_NOT_RUN, flags, raw_exceptions

PEAK_RSS_BOUND = 400 * 1024 * 1024
CAP = 10 * 1024 * 1024

# a wrapper that runs its arguments and prints the largest RSS of any process it waited for
# (the kernel's ru_maxrss of the children: kilobytes on Linux)
MEASURED = (
    "import resource, subprocess, sys\n"
    "code = subprocess.run(sys.argv[1:], check=False).returncode\n"
    "print('PEAK_RSS_KB', resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, flush=True)\n"
    "sys.exit(code)\n"
)


def measured(command: list[str], timeout: float = 300) -> tuple[int, str, int]:
    """Run ``command`` under the wrapper: its exit code, its output, and the peak RSS (bytes)
    of the largest process it started."""
    done = subprocess.run(
        [sys.executable, "-c", MEASURED, *command], capture_output=True, text=True,
        timeout=timeout, stdin=subprocess.DEVNULL, check=False, env=_environment(),
    )  # fmt: skip
    peaks = [line for line in done.stdout.splitlines() if line.startswith("PEAK_RSS_KB ")]
    assert peaks, done.stdout[-2000:] + done.stderr[-2000:]
    return done.returncode, done.stdout + done.stderr, int(peaks[-1].split()[1]) * 1024


def test_the_bomb_inflates_as_stated():
    assert 1_000_000 < len(deflate_bomb()) < 1_200_000
    assert BOMB_INFLATED > 1024**3


def test_the_client_stops_a_bomb_at_its_cap_on_decompressed_bytes():
    """One answer: the client reads at most one piece past its cap, and holds little more
    than the cap while reading (a whole received chunk inflated at once was 64 MiB)."""
    with HostileTarget("bomb") as target:
        deflate_bomb()
        client = make_client(target.base_url, max_bytes=CAP)
        client.timeout = 30.0
        tracemalloc.start()
        try:
            message = read_everything(client)
            _, peak = tracemalloc.get_traced_memory()
        finally:
            tracemalloc.stop()
    stopped = re.search(r"stopped reading at (\d+)", message)
    assert stopped, message
    assert CAP < int(stopped.group(1)) <= CAP + PIECE, message
    assert peak < 3 * CAP, f"{peak / 2**20:.0f} MiB held while reading one answer"


def test_a_run_against_a_deflate_bomb_is_one_clear_failure_in_bounded_memory(tmp_path: Path):
    with HostileTarget("bomb", healthy_first=3) as target:
        deflate_bomb()  # built before the run: its seconds of CPU are not the run's
        started = time.monotonic()
        code, output, peak = measured(
            [sys.executable, "-m", "conformance.run.cli", "run", f"--report-dir={tmp_path}",
             *flags(target), "--adapter=reference.adapter", "--parts=resources,endpoints,errors",
             "-n", "0"]
        )  # fmt: skip
        elapsed = time.monotonic() - started
    summary = json.loads((tmp_path / "summary.json").read_text())
    result = RunResult(code, output, summary, tmp_path)
    print(f"peak RSS {peak / 2**20:.0f} MiB in {elapsed:.0f} s")
    assert peak < PEAK_RSS_BOUND, f"peak RSS {peak / 2**20:.0f} MiB"
    assert code in (EXIT_FAILED, EXIT_NOT_RUN), output[-3000:]
    totals = summary["totals"]
    assert totals["failed"] + totals["errors"] <= 2, summary["failures"]
    assert "too large to read" in summary.get("incomplete_reason", ""), summary
    messages = " ".join(f["message"] for f in summary["failures"])
    assert f"size cap of {CAP} bytes" in messages, messages[:2000]
    assert "decompressed" in summary["incomplete_reason"]
    assert raw_exceptions(result) == []


ADAPTER_CALL = """
import sys, types
from reference.adapter.transport import AdapterError, call
profile = types.SimpleNamespace(base_url=sys.argv[1], client_id="id", client_secret="secret",
                                request_timeout=30.0)
try:
    call(profile, "GET", "/sandbox/limits/USD")
except AdapterError as error:
    print("ADAPTER_ERROR", error, flush=True)
"""


def test_the_reference_adapter_holds_the_cap_on_a_deflate_bomb():
    with HostileTarget("bomb") as target:
        deflate_bomb()
        code, output, peak = measured([sys.executable, "-c", ADAPTER_CALL, target.base_url])
    print(f"adapter's peak RSS {peak / 2**20:.0f} MiB")
    assert code == 0, output[-3000:]
    assert "ADAPTER_ERROR GET /sandbox/limits/USD answered 200: more than" in output, output
    assert peak < PEAK_RSS_BOUND, f"peak RSS {peak / 2**20:.0f} MiB"
