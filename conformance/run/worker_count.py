"""How many xdist workers ``conformance run -n auto`` starts, and why.

A worker spends its time in two ways: the suite's own CPU (about 4 ms a request, the
reports included: ``benchmarks/PERFORMANCE.md``) and waiting for the target's answers.
Against the embedded sandbox the waiting is short and the CPUs bound the run: one worker
per CPU. Against a target a network away each worker mostly waits, so it takes more workers
to keep the CPUs busy: about ``CPUs x (1 + latency / CPU per request)``, at most
``MAX_AUTO_WORKERS`` (beyond it the run's fixed costs, each worker's collection and session
set-up, eat what more workers would save), and no more than a ``--rate-limit`` lets wait
at once. The latency is measured with a few ``GET /config`` before the run.
"""

from __future__ import annotations

import statistics
import time
from dataclasses import dataclass

from conformance.contract.failures import ConformanceFailure
from conformance.exchange.client import TargetClient
from conformance.ground.profile import TargetProfile
from conformance.run.embedded import usable_cpus

__all__ = ["AUTO_WORDS", "CPU_MS_PER_REQUEST", "MAX_AUTO_WORKERS", "AutoWorkers", "auto_workers"]

AUTO_WORDS = frozenset({"auto", "logical"})
CPU_MS_PER_REQUEST = 4.0
MAX_AUTO_WORKERS = 16
PROBES = 3
PROBE_TIMEOUT_S = 5.0


@dataclass(frozen=True, slots=True)
class AutoWorkers:
    """The worker count chosen, and the sentence that says why."""

    count: int
    reason: str


def auto_workers(profile: TargetProfile) -> AutoWorkers:
    """The worker count for ``-n auto`` against ``profile``'s target."""
    cpus = usable_cpus()
    if profile.embedded or profile.base_url is None:
        return AutoWorkers(cpus, f"{cpus} workers, one per CPU (the embedded sandbox)")
    latency_ms = _latency_ms(profile)
    if latency_ms is None:
        return AutoWorkers(cpus, f"{cpus} workers, one per CPU (the target did not answer)")
    wanted = round(cpus * (1 + latency_ms / CPU_MS_PER_REQUEST))
    count = max(cpus, min(MAX_AUTO_WORKERS, wanted))
    reason = (
        f"{count} workers for {cpus} CPUs: the target answered GET /config in "
        f"{latency_ms:.0f} ms (median of {PROBES})"
    )
    if profile.rate_limit:
        # more workers than requests the limit lets be in flight would only queue
        in_flight = max(1, round(profile.rate_limit * latency_ms / 1000))
        if in_flight < count:
            count = max(1, min(count, max(cpus, in_flight)))
            reason += f", and --rate-limit {profile.rate_limit:g}/s keeps {in_flight} in flight"
    return AutoWorkers(count, reason)


def _latency_ms(profile: TargetProfile) -> float | None:
    """The median round trip of a few ``GET /config``, or None when one got no answer."""
    client = TargetClient.for_profile(
        profile, timeout=min(profile.request_timeout, PROBE_TIMEOUT_S)
    )
    samples: list[float] = []
    try:
        for _ in range(PROBES):
            started = time.perf_counter()
            try:
                client.get("/config", validate=False)
            except ConformanceFailure:
                return None
            samples.append((time.perf_counter() - started) * 1000)
    finally:
        client.close()
    return statistics.median(samples)
