"""Benchmark: how fast the kit and the reference are, measured rather than assumed.

Runs on loopback only, with bounded request counts, and prints one JSON document:

- the reference sandbox: start-up time, ``GET /config`` latency (sequential) and throughput
  (8 threads), resident memory after the load;
- webhooks: time from ``POST /sandbox/webhooks/test`` to the signed delivery at the sink;
- the suite: wall time of ``conformance run`` against the embedded sandbox, serial and with
  ``-n 2``, with its test and request counts.

Usage: ``python benchmarks/bench.py [--requests 500] [--webhooks 50] [--skip-suite]``
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import httpx

from conformance.embedded import start_embedded
from conformance.sink import EndpointRegistration, SinkServer, SinkView


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


def bench_suite(workers: int | None) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as report_dir:
        command = [sys.executable, "-m", "conformance.cli", "run", f"--report-dir={report_dir}"]
        if workers:
            command += ["-n", str(workers)]
        t0 = time.perf_counter()
        done = subprocess.run(command, capture_output=True, text=True, check=False)
        wall = time.perf_counter() - t0
        summary = json.loads((Path(report_dir) / "summary.json").read_text())
    return {
        "workers": workers or 1,
        "exit_code": done.returncode,
        "wall_s": round(wall, 2),
        "tests": summary["totals"],
        "requests": summary.get("requests"),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=500)
    parser.add_argument("--webhooks", type=int, default=50)
    parser.add_argument("--skip-suite", action="store_true")
    args = parser.parse_args()
    figures: dict[str, Any] = {
        "reference": bench_reference(args.requests),
        "webhooks": bench_webhooks(args.webhooks),
    }
    if not args.skip_suite:
        figures["suite"] = [bench_suite(None), bench_suite(2)]
    print(json.dumps(figures, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
