"""Benchmark: how fast the kit and the reference are, measured rather than assumed.

Runs on loopback only, with bounded request counts, and prints one JSON document:

- the reference sandbox: start-up time, ``GET /config`` latency (sequential) and throughput
  (8 threads), resident memory after the load;
- webhooks: time from ``POST /sandbox/webhooks/test`` to the signed delivery at the sink;
- money movement: ``POST /quotes`` and ``POST /quotes/{id}/execute`` latency (sequential),
  executes per second from 8 threads on distinct quotes, and whether the ledger still
  balances afterwards (funded = left on the source + credited to the destination);
- the suite: wall time of ``conformance run`` against the embedded sandbox, serial and with
  ``-n 2``, with its test and request counts.

Usage: ``python benchmarks/bench.py [--requests 500] [--webhooks 50] [--quotes 200]
[--skip-suite]``
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


# A complete individual packet; on a regulated sandbox a name without a scenario suffix
# resolves to APPROVED at creation (ARCHITECTURE.md, "Verification and the sandbox suffixes").
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
    parser.add_argument("--quotes", type=int, default=200)
    parser.add_argument("--skip-suite", action="store_true")
    args = parser.parse_args()
    figures: dict[str, Any] = {
        "reference": bench_reference(args.requests),
        "webhooks": bench_webhooks(args.webhooks),
        "money": bench_money(args.quotes),
    }
    if not args.skip_suite:
        figures["suite"] = [bench_suite(None), bench_suite(2)]
    print(json.dumps(figures, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
