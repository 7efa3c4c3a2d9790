"""Benchmark: the reference sandbox under load and under a hostile corpus (issue 24).

Starts the reference on loopback and prints one JSON document:

- ``load``: requests per second and latency percentiles of a mix of ordinary requests
  (``GET /config``, ``POST /customers``, ``GET /customers/{id}``) from several threads;
- ``hostile``: a corpus of bad requests (lone surrogates, bytes that are not UTF-8, repeated
  members, NaN, deep nesting, integers past 64 bits, arrays for objects, non-ASCII
  credentials, and bodies of ``--big-mib`` MiB with and without a Content-Length): how
  many answers were 4xx, 5xx or no answer at all, and how long it took;
- ``beside_the_big_upload``: the latency of ordinary requests from another client while a
  big body is being sent (a server that reads whole bodies first stalls them);
- ``rss_mib``: the sandbox's resident memory before, after the load, and after the corpus.

Every figure is measured here, on this machine: nothing is asserted. Usage:
``python benchmarks/sandbox_hostile.py [--requests 600] [--threads 8] [--big-mib 50]``
"""

from __future__ import annotations

import argparse
import json
import threading
import time
from collections import Counter
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import httpx
from bench import percentiles, rss_mib

from conformance.run.embedded import start_embedded

INDIVIDUAL = {
    "customerType": "INDIVIDUAL",
    "platformCustomerId": "bench",
    "fullName": "Ann Lee",
    "birthDate": "1990-01-31",
    "nationality": "US",
    "address": {"line1": "1 Main St", "city": "Austin", "postalCode": "78701", "country": "US"},
}


def _corpus(customer_id: str, account_id: str) -> list[tuple[str, str, bytes, dict[str, str]]]:
    """(method, path, body, extra headers) of each hostile request."""
    json_type = {"content-type": "application/json"}
    surrogate = b'{"customerType":"INDIVIDUAL","fullName":"Ann \\ud800 Lee"}'
    bodies = {
        "lone surrogate": surrogate,
        "not UTF-8": b'{"fullName":"\xff\xfe"}',
        "repeated member": b'{"fullName":"a","fullName":"b"}',
        "NaN": b'{"minAmount": NaN}',
        "deep nesting": b'{"a":' * 5000 + b"1" + b"}" * 5000,
        "integer past 64 bits": b'{"amount": 18446744073709551616}',
        "array for object": b"[1, 2, 3]",
        "empty": b"",
    }
    targets = [
        ("POST", "/customers"),
        ("PATCH", f"/customers/{customer_id}"),
        ("PATCH", "/config"),
        ("POST", "/quotes"),
        ("POST", f"/sandbox/internal-accounts/{account_id}/fund"),
        ("POST", "/auth/credentials"),
    ]
    found = [(m, p, body, json_type) for m, p in targets for body in bodies.values()]
    # credentials that are not ASCII (sent as raw bytes: httpx refuses to encode them)
    found.append(("GET", "/config", b"", {"authorization": "Basic \u00e9\u00e9\u00e9"}))
    return found


def _send(client: httpx.Client, base: str, request: tuple[str, str, bytes, dict[str, str]]) -> str:
    method, path, body, headers = request
    raw = [(name.encode(), value.encode("utf-8")) for name, value in headers.items()]
    try:
        if "authorization" in headers:  # the client's own credentials would replace them
            with httpx.Client(timeout=client.timeout) as bare:
                status = bare.request(method, base + path, content=body, headers=raw).status_code
        else:
            status = client.request(method, base + path, content=body, headers=raw).status_code
    except httpx.HTTPError:
        return "no answer"
    return f"{status // 100}xx"


def _big_customer(mib: int) -> Iterator[bytes]:
    """A valid customer whose ``fullName`` is ``mib`` MiB long, in chunks."""
    head = json.dumps({k: v for k, v in INDIVIDUAL.items() if k != "fullName"})
    yield head[:-1].encode() + b', "fullName": "'
    chunk = b"a" * (256 * 1024)
    for _ in range(mib * 4):
        yield chunk
    yield b'"}'


def bench_load(base: str, auth: tuple[str, str], requests: int, threads: int) -> dict[str, Any]:
    local = threading.local()
    samples: list[float] = []
    statuses: Counter[str] = Counter()
    lock = threading.Lock()

    def one(index: int) -> None:
        if not hasattr(local, "client"):
            local.client = httpx.Client(auth=auth, timeout=30)
        client: httpx.Client = local.client
        t0 = time.perf_counter()
        kind = index % 3
        if kind == 0:
            status = client.get(f"{base}/config").status_code
        else:
            made = client.post(
                f"{base}/customers", json={**INDIVIDUAL, "platformCustomerId": f"b{index}"}
            )
            status = made.status_code
            if kind == 2 and made.status_code == 201:
                status = client.get(f"{base}/customers/{made.json()['id']}").status_code
        with lock:
            samples.append((time.perf_counter() - t0) * 1000)
            statuses[f"{status // 100}xx"] += 1

    t0 = time.perf_counter()
    with ThreadPoolExecutor(max_workers=threads) as pool:
        list(pool.map(one, range(requests)))
    elapsed = time.perf_counter() - t0
    return {
        "requests": requests,
        "threads": threads,
        "requests_per_s": round(requests / elapsed, 1),
        "latency": percentiles(samples),
        "answers": dict(statuses),
    }


def bench_hostile(base: str, auth: tuple[str, str], big_mib: int) -> dict[str, Any]:
    with httpx.Client(auth=auth, timeout=60) as client:
        customer = client.post(f"{base}/customers", json=INDIVIDUAL).json()
        accounts = client.get(f"{base}/internal-accounts", params={"customerId": customer["id"]})
        listed = accounts.json() if accounts.status_code == 200 else []
        items = listed.get("data", listed) if isinstance(listed, dict) else listed
        account_id = items[0]["id"] if items else "InternalAccount:none"
        corpus = _corpus(customer["id"], account_id)
        json_type = {"content-type": "application/json"}
        answers: Counter[str] = Counter()
        t0 = time.perf_counter()
        for request in corpus:
            answers[_send(client, base, request)] += 1
        corpus_s = time.perf_counter() - t0
        big: dict[str, str] = {}
        sized = b"".join(_big_customer(big_mib))
        big["with content-length"] = _send(client, base, ("POST", "/customers", sized, json_type))
        del sized
        try:
            status = client.post(
                f"{base}/customers", content=_big_customer(big_mib), headers=json_type
            ).status_code
            big["streamed"] = f"{status // 100}xx"
        except httpx.HTTPError:
            big["streamed"] = "no answer"
        still = client.get(f"{base}/config").status_code
    return {
        "corpus_requests": len(corpus),
        "corpus_s": round(corpus_s, 2),
        "answers": dict(answers),
        "big_bodies": big,
        "ordinary_request_after": still,
    }


def bench_beside_big_upload(base: str, auth: tuple[str, str], big_mib: int) -> dict[str, Any]:
    """Ordinary requests from a second client while a first sends big customers, one after
    another (a server that parses whole bodies on its event loop stalls the others)."""
    done = threading.Event()
    samples: list[float] = []
    sized = b"".join(_big_customer(big_mib))

    def upload() -> None:
        with httpx.Client(auth=auth, timeout=120) as client:
            while not done.is_set():
                try:
                    client.post(f"{base}/customers", content=sized,
                                headers={"content-type": "application/json"})  # fmt: skip
                except httpx.HTTPError:
                    return

    uploader = threading.Thread(target=upload)
    uploader.start()
    with httpx.Client(auth=auth, timeout=60) as client:
        for _ in range(100):
            t0 = time.perf_counter()
            client.get(f"{base}/config")
            samples.append((time.perf_counter() - t0) * 1000)
    done.set()
    uploader.join()
    return {"requests": len(samples), "latency": percentiles(samples)}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=600)
    parser.add_argument("--threads", type=int, default=8)
    parser.add_argument("--big-mib", type=int, default=50)
    args = parser.parse_args()
    sandbox = start_embedded()
    info = sandbox.info
    base, auth = info["base_url"], (info["client_id"], info["client_secret"])
    pid = sandbox.process.pid
    try:
        rss = {"before": rss_mib(pid)}
        load = bench_load(base, auth, args.requests, args.threads)
        rss["after_load"] = rss_mib(pid)
        hostile = bench_hostile(base, auth, args.big_mib)
        rss["after_corpus"] = rss_mib(pid)
        beside = bench_beside_big_upload(base, auth, args.big_mib)
        rss["at_end"] = rss_mib(pid)
        alive = sandbox.process.poll() is None
    finally:
        sandbox.stop()
    result = {
        "load": load,
        "hostile": hostile,
        "beside_the_big_upload": beside,
        "rss_mib": rss,
        "sandbox_alive_at_end": alive,
    }
    print(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
