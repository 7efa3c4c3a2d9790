"""Benchmark: how fast the kit and the reference are, measured rather than assumed.

Runs on loopback only, with bounded request counts, and prints one JSON document:

- the reference sandbox: start-up time, ``GET /config`` latency (sequential) and throughput
  (8 threads), resident memory after the load;
- webhooks: time from ``POST /sandbox/webhooks/test`` to the signed delivery at the sink;
- money movement: ``POST /quotes`` and ``POST /quotes/{id}/execute`` latency (sequential),
  executes per second from 8 threads on distinct quotes, and whether the ledger still
  balances afterwards (funded = left on the source + credited to the destination);
- the suite: wall time of ``conformance run`` against the embedded sandbox, serial and with
  ``-n 2``, ``-n 4``, ``-n 8`` and the speed-up of each over serial, with a sandbox per
  worker (up to the CPUs: the default) and with one sandbox the workers share; the best a
  split into two processes can do here (two independent serial runs of half the parts each,
  side by side, no xdist); CPU per
  request of the whole run and the suite's own share (everything but the sandboxes' work);
  a run against a sandbox whose quotes live 60 s, with its waits on the target's clock and
  the rest;
- a remote target (``latency_table.py``): one sandbox answering every request 10, 50 and
  150 ms late, shared by the workers, serial and ``-n 4``, ``-n 8``, ``-n 16``, as a table;
- for every run, its critical path (``critical_path.py``, from the timeline that
  ``run_timeline.py`` records): start-up, the sections in which one test runs alone, the
  tail, the longest tests, the waits on the target's clock, the end; printed to stderr as
  each remote-target run ends;
- with ``--self-tests``, the wall time of the project's own test suite.

Usage: ``python benchmarks/bench.py [--requests 500] [--webhooks 50] [--quotes 200]
[--skip-suite] [--workers 2,4,8] [--rounds 1] [--quote-lifetime 60] [--latencies 10,50,150]
[--latency-workers 4,8,16] [--remote-only] [--self-tests]``
"""

from __future__ import annotations

import argparse
import contextlib
import itertools
import json
import os
import re
import resource
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import xml.etree.ElementTree as ET
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import httpx
from critical_path import critical_path
from latency_table import latency_series, table

from conformance.run.embedded import start_embedded
from conformance.webhooks.sink import EndpointRegistration, SinkServer, SinkView

_HERE = Path(__file__).resolve().parent  # the bench's own modules: run_timeline's folder


def percentiles(samples_ms: list[float]) -> dict[str, float]:
    ordered = sorted(samples_ms)

    def at(fraction: float) -> float:
        return round(ordered[min(len(ordered) - 1, int(fraction * len(ordered)))], 2)

    return {
        "p50_ms": at(0.50),
        "p95_ms": at(0.95),
        "p99_ms": at(0.99),
        "mean_ms": round(statistics.fmean(ordered), 2),
        "max_ms": round(ordered[-1], 2),
    }


def rss_mib(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return round(int(line.split()[1]) / 1024, 1)
    return float("nan")


def bench_reference(requests: int) -> dict[str, Any]:
    started = time.monotonic()
    sandbox = start_embedded()
    startup_s = time.monotonic() - started
    info = sandbox.info
    auth = (info["client_id"], info["client_secret"])
    url = f"{info['base_url']}/config"
    try:
        with httpx.Client(auth=auth, timeout=10) as client:
            samples = []
            for _ in range(requests):
                t0 = time.perf_counter()
                client.get(url).raise_for_status()
                samples.append((time.perf_counter() - t0) * 1000)
        local = threading.local()

        def one(_: int) -> None:
            if not hasattr(local, "client"):
                local.client = httpx.Client(auth=auth, timeout=10)
            local.client.get(url).raise_for_status()

        t0 = time.perf_counter()
        with ThreadPoolExecutor(max_workers=8) as pool:
            list(pool.map(one, range(requests)))
        elapsed = time.perf_counter() - t0
        return {
            "startup_s": round(startup_s, 2),
            "get_config_sequential": percentiles(samples),
            "get_config_8_threads_rps": round(requests / elapsed, 1),
            "rss_mib_after_load": rss_mib(sandbox.process.pid),
        }
    finally:
        sandbox.stop()


def bench_webhooks(count: int) -> dict[str, Any]:
    sandbox = start_embedded()
    info = sandbox.info
    auth = (info["client_id"], info["client_secret"])
    base = info["base_url"]
    sink = SinkServer().start()
    try:
        with httpx.Client(auth=auth, timeout=10) as client:
            registration = EndpointRegistration(
                get_config=lambda: client.get(f"{base}/config").json(),
                patch_config=lambda body: client.patch(f"{base}/config", json=body).json(),
                sink_url=sink.url,
            )
            registration.register()
            view = SinkView(sink.control_url, public_key=info["webhook_public_key_pem"])
            samples, valid = [], 0
            for _ in range(count):
                t0 = time.perf_counter()
                webhook_id = client.post(f"{base}/sandbox/webhooks/test").json()["webhookId"]
                delivery = view.wait_for(lambda d, w=webhook_id: d.event_id == w, timeout=10,
                                         description="TEST delivery")  # fmt: skip
                samples.append((time.perf_counter() - t0) * 1000)
                valid += bool(view.signature(delivery).valid)
            registration.restore()
            registration.uninstall()
        return {"trigger_to_delivery": percentiles(samples), "signatures_valid": f"{valid}/{count}"}
    finally:
        sink.stop()
        sandbox.stop()


# A complete individual packet; on a regulated sandbox a name without a scenario suffix
# resolves to APPROVED at creation (SANDBOX.md, "Verification and the sandbox suffixes").
_CUSTOMER = {
    "customerType": "INDIVIDUAL",
    "birthDate": "1990-04-01",
    "nationality": "US",
    "idType": "SSN",
    "identifier": "123-45-6789",
    "address": {"line1": "1 Main St", "city": "Springfield", "postalCode": "12345",
                "country": "US"},
}  # fmt: skip
# An ordinary payee: the sandbox pays identifiers ending in 000 at once.
_PAYEE = {
    "accountType": "US_ACCOUNT",
    "accountNumber": "123456000",
    "routingNumber": "021000021",
    "accountCategory": "CHECKING",
    "accountHolderName": "Bench Payee",
}


def _usd_account(client: httpx.Client, base: str, name: str) -> tuple[str, str]:
    """(customer id, USD internal account id) of a new approved customer."""
    created = client.post(f"{base}/customers", json={**_CUSTOMER, "fullName": name})
    created.raise_for_status()
    customer_id = created.json()["id"]
    return customer_id, _usd(client, base, customer_id)["id"]


def _usd(client: httpx.Client, base: str, customer_id: str) -> dict[str, Any]:
    listed = client.get(f"{base}/customers/internal-accounts", params={"customerId": customer_id})
    listed.raise_for_status()
    return next(a for a in listed.json()["data"] if a["currency"] == "USD")


def bench_money(quotes: int) -> dict[str, Any]:
    sandbox = start_embedded("--regulated --quote-lifetime 600")
    info = sandbox.info
    base = info["base_url"]
    auth = (info["client_id"], info["client_secret"])
    try:
        with httpx.Client(auth=auth, timeout=10) as client:
            sender, source = _usd_account(client, base, "Bench Sender")
            external = client.post(
                f"{base}/customers/external-accounts",
                json={"customerId": sender, "currency": "USD", "accountInfo": _PAYEE},
            )
            external.raise_for_status()
            destination = external.json()["id"]
            amount = 1_000
            funded = amount * quotes * 2
            client.post(
                f"{base}/sandbox/internal-accounts/{source}/fund", json={"amount": funded}
            ).raise_for_status()
            body = {
                "source": {"sourceType": "ACCOUNT", "accountId": source},
                "destination": {"destinationType": "ACCOUNT", "accountId": destination},
                "lockedCurrencySide": "SENDING",
                "lockedCurrencyAmount": amount,
            }
            create_ms, execute_ms = [], []
            for _ in range(quotes):
                t0 = time.perf_counter()
                quote = client.post(f"{base}/quotes", json=body)
                create_ms.append((time.perf_counter() - t0) * 1000)
                quote.raise_for_status()
                t0 = time.perf_counter()
                client.post(f"{base}/quotes/{quote.json()['id']}/execute").raise_for_status()
                execute_ms.append((time.perf_counter() - t0) * 1000)
            pending = [client.post(f"{base}/quotes", json=body).json()["id"] for _ in range(quotes)]
        local = threading.local()

        def execute(quote_id: str) -> None:
            if not hasattr(local, "client"):
                local.client = httpx.Client(auth=auth, timeout=30)
            local.client.post(f"{base}/quotes/{quote_id}/execute").raise_for_status()

        t0 = time.perf_counter()
        with ThreadPoolExecutor(max_workers=8) as pool:
            list(pool.map(execute, pending))
        elapsed = time.perf_counter() - t0
        with httpx.Client(auth=auth, timeout=10) as client:
            left = _usd(client, base, sender)["totalBalance"]["amount"]
        return {
            "create_quote_sequential": percentiles(create_ms),
            "execute_sequential": percentiles(execute_ms),
            "execute_8_threads_per_s": round(quotes / elapsed, 1),
            # same currency, no fees: every executed quote moved exactly `amount` out
            "ledger_balances": funded - left == amount * quotes * 2,
            "rss_mib_after_load": rss_mib(sandbox.process.pid),
        }
    finally:
        sandbox.stop()


def _cpu_s(pid: int) -> float:
    """User + system CPU seconds of a live process (Linux /proc), 0 when gone."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _children(pid: int) -> list[int]:
    try:
        return [int(c) for c in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]
    except OSError:
        return []


def _is_sandbox(pid: int) -> bool:
    try:
        return b"reference\x00serve" in Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return False


def bench_suite(
    workers: int | None,
    *,
    embedded_args: str = "",
    sandboxes: int | None = None,
    parts: str | None = None,
) -> dict[str, Any]:
    """One ``conformance run`` against the embedded sandbox (``sandboxes`` of them under
    xdist, default one per worker up to the CPUs): wall time, CPU of the whole run (suite,
    workers, sandboxes), the sandboxes' own CPU (sampled from /proc every 0.1 s while they
    run, so up to 0.1 s of each may be missed), and the time spent waiting on the target's
    clock (from the progress lines of long waits)."""
    with tempfile.TemporaryDirectory() as report_dir:
        command = [sys.executable, "-m", "conformance.run.cli", "run", f"--report-dir={report_dir}"]
        if workers:
            command += ["-n", str(workers)]
        if embedded_args:
            command.append(f"--embedded-args={embedded_args}")
        if sandboxes:
            command.append(f"--embedded-sandboxes={sandboxes}")
        if parts:
            command.append(f"--parts={parts}")
        # each test's start and end, for the critical path (run_timeline.py)
        timeline_file = Path(report_dir) / "timeline.json"
        command += ["--", "-p", "run_timeline"]
        paths = (str(_HERE), os.environ.get("PYTHONPATH"))
        env = {**os.environ, "BENCH_TIMELINE": str(timeline_file),
               "PYTHONPATH": os.pathsep.join(p for p in paths if p)}  # fmt: skip
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        started_at = time.time()
        t0 = time.perf_counter()
        process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                   text=True, stdin=subprocess.DEVNULL, env=env)  # fmt: skip
        output: list[str] = []
        reader = threading.Thread(target=lambda: output.extend(process.stdout or ()), daemon=True)
        reader.start()
        sandbox_cpu: dict[int, float] = {}
        while process.poll() is None:
            for child in _children(process.pid):
                if _is_sandbox(child):
                    sandbox_cpu[child] = max(sandbox_cpu.get(child, 0.0), _cpu_s(child))
            time.sleep(0.1)
        wall = time.perf_counter() - t0
        ended_at = time.time()
        reader.join(10)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        summary = json.loads((Path(report_dir) / "summary.json").read_text())
        part_seconds = _part_seconds(Path(report_dir) / "junit.xml")
        timeline = json.loads(timeline_file.read_text()) if timeline_file.exists() else {}
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    requests = summary.get("requests") or 0
    target_cpu = sum(sandbox_cpu.values())
    waits = [float(w) for w in _WAIT_DONE.findall("".join(output))]
    figures: dict[str, Any] = {
        "workers": workers or 1,
        "sandboxes": len(sandbox_cpu),
        "exit_code": process.returncode,
        "wall_s": round(wall, 2),
        "tests": summary["totals"],
        "requests": requests,
        "cpu_s": round(cpu, 2),
        "target_cpu_s": round(target_cpu, 2),
        "cpu_ms_per_request": round(1000 * cpu / requests, 2) if requests else None,
        "suite_cpu_ms_per_request": (
            round(1000 * (cpu - target_cpu) / requests, 2) if requests else None
        ),
        "waits_s": waits,
        "part_seconds": part_seconds,
        "critical_path": critical_path(timeline, started_at, ended_at, workers or 1, waits),
    }
    if embedded_args:
        figures["embedded_args"] = embedded_args
    return figures


_WAIT_DONE = re.compile(r"done waiting for .*?\((\d+) s\)")


def _part_seconds(junit: Path) -> dict[str, float]:
    """Seconds of test time per spec part, read off a run's JUnit XML (a test case's class
    name starts with its part's folder)."""
    seconds: dict[str, float] = {}
    with contextlib.suppress(OSError, ET.ParseError):
        for case in ET.parse(junit).iter("testcase"):
            part = (case.get("classname") or "").split(".")[0]
            seconds[part] = seconds.get(part, 0.0) + float(case.get("time") or 0)
    return {part: round(value, 3) for part, value in sorted(seconds.items())}


def _halves(part_seconds: dict[str, float]) -> tuple[str, str]:
    """The two groups of parts whose test times are closest (every split is tried: there
    are eight parts)."""
    parts = sorted(part_seconds)
    total = sum(part_seconds.values())
    best: tuple[float, tuple[str, ...]] = (total, tuple(parts))
    for size in range(1, len(parts)):
        for group in itertools.combinations(parts, size):
            gap = abs(total - 2 * sum(part_seconds[p] for p in group))
            best = min(best, (gap, group))
    rest = tuple(p for p in parts if p not in best[1])
    return ",".join(best[1]), ",".join(rest)


def _split_ceiling(rounds: int) -> dict[str, Any]:
    """What splitting the run across two processes can gain here at best, with no xdist
    at all: each round, a serial run, then two independent serial runs side by side (each
    with its own sandbox), of the two halves of the parts closest in test time. A -n 2 run
    cannot beat this: it pays the same two start-ups and more."""
    ratios, walls, splits = [], [], []
    for _ in range(rounds):
        serial = bench_suite(None)
        first, second = _halves(serial["part_seconds"])
        t0 = time.perf_counter()
        with ThreadPoolExecutor(2) as pool:
            halves = list(pool.map(lambda parts: bench_suite(None, parts=parts), (first, second)))
        wall = time.perf_counter() - t0
        if any(half["exit_code"] != 0 for half in halves):
            raise RuntimeError(f"a half run failed: {[h['exit_code'] for h in halves]}")
        ratios.append(round(serial["wall_s"] / wall, 2))
        walls.append({"serial": serial["wall_s"], "halves_side_by_side": round(wall, 2),
                      "each_half": [half["wall_s"] for half in halves]})  # fmt: skip
        splits.append([first, second])
    return {
        "speedup_vs_serial": round(statistics.median(ratios), 2),
        "rounds": {"speedup_vs_serial": ratios, "wall_s": walls, "halves": splits},
    }


def bench_self_tests() -> dict[str, Any]:
    """Wall time of the project's own test suite (``pytest`` as CI runs it)."""
    # a shell's background job starts with Ctrl-C ignored, which its children inherit and
    # the self-tests that interrupt a run with SIGINT would then fail
    signal.signal(signal.SIGINT, signal.default_int_handler)
    t0 = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"],
                          capture_output=True, text=True, check=False)  # fmt: skip
    last = (done.stdout.strip().splitlines() or [""])[-1]
    return {"exit_code": done.returncode, "wall_s": round(time.perf_counter() - t0, 1),
            "result": last}  # fmt: skip


def _scaling(
    workers: list[int], embedded_args: str = "", rounds: int = 1, sandboxes: int | None = None
) -> list[dict[str, Any]]:
    """Serial, then each worker count, in ``rounds`` alternated rounds: on a shared machine
    the speed drifts from one minute to the next, so each round's speed-up is taken over
    that round's own serial run. Each entry is the run of median wall time, with every
    round's wall time and speed-up, and their medians."""
    counts: list[int | None] = [None, *workers]
    runs: dict[int | None, list[dict[str, Any]]] = {n: [] for n in counts}
    for _ in range(rounds):
        for n in counts:
            runs[n].append(bench_suite(n, embedded_args=embedded_args, sandboxes=sandboxes))
    serial_walls = [run["wall_s"] for run in runs[None]]
    figures = []
    for n in counts:
        walls = [run["wall_s"] for run in runs[n]]
        ratios = [round(serial / wall, 2) for serial, wall in zip(serial_walls, walls, strict=True)]
        median = sorted(runs[n], key=lambda run: run["wall_s"])[(len(walls) - 1) // 2]
        figures.append({
            **median,
            "speedup_vs_serial": round(statistics.median(ratios), 2),
            "rounds": {"wall_s": walls, "speedup_vs_serial": ratios},
        })  # fmt: skip
    return figures


def suite_figures(workers: list[int], quote_lifetime: int, rounds: int = 1) -> dict[str, Any]:
    runs = _scaling(workers, rounds=rounds)
    ceiling = _split_ceiling(rounds)
    # the workers of a run against any other target share it: so does this series
    shared = _scaling(workers, rounds=rounds, sandboxes=1)
    slow = bench_suite(None, embedded_args=f"--quote-lifetime {quote_lifetime}")
    return {
        "embedded": runs,
        "embedded_two_independent_halves": ceiling,
        "embedded_one_shared_sandbox": shared,
        f"quotes_live_{quote_lifetime}_s": {
            **slow,
            "longest_wait_s": max(slow["waits_s"], default=0),
            "rest_of_run_s": round(slow["wall_s"] - max(slow["waits_s"], default=0), 2),
        },
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=500)
    parser.add_argument("--webhooks", type=int, default=50)
    parser.add_argument("--quotes", type=int, default=200)
    parser.add_argument("--skip-suite", action="store_true")
    parser.add_argument("--workers", default="2,4,8", help="worker counts to compare to serial")
    parser.add_argument("--quote-lifetime", type=int, default=60, help="quote lifetime (s) "
                        "of the sandbox for the slow-target run")  # fmt: skip
    parser.add_argument("--latencies", default="10,50,150",
                        help="latencies (ms) of the remote-target table: one sandbox shared by "
                        "the workers answering each request that late; empty skips it")  # fmt: skip
    parser.add_argument("--latency-workers", default="4,8,16",
                        help="worker counts of the remote-target table")  # fmt: skip
    parser.add_argument("--remote-only", action="store_true",
                        help="only the remote-target table (with its critical paths)")  # fmt: skip
    parser.add_argument("--rounds", type=int, default=1,
                        help="alternated rounds of the embedded serial/worker runs; the "
                        "speed-ups are medians of each round's own ratio")  # fmt: skip
    parser.add_argument("--self-tests", action="store_true",
                        help="also time the project's own test suite (minutes)")  # fmt: skip
    args = parser.parse_args()
    figures: dict[str, Any] = {}
    numbers = lambda text: [int(n) for n in text.split(",") if n.strip()]  # noqa: E731
    if not args.remote_only:
        figures["reference"] = bench_reference(args.requests)
        figures["webhooks"] = bench_webhooks(args.webhooks)
        figures["money"] = bench_money(args.quotes)
        if not args.skip_suite:
            figures["suite"] = suite_figures(
                numbers(args.workers), args.quote_lifetime, args.rounds
            )
    if numbers(args.latencies) and not args.skip_suite:
        # a remote target, shared by the workers, whose latency, not the suite's CPU,
        # bounds the run
        remote = latency_series(bench_suite, numbers(args.latencies),
                                numbers(args.latency_workers))  # fmt: skip
        figures["remote_target"] = remote
        print(table(remote), file=sys.stderr)
    if args.self_tests:
        figures["self_tests"] = bench_self_tests()
    print(json.dumps(figures, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
