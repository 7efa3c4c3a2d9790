"""Benchmark: what the cross-check ledger (``conformance/exchange/ledger.py``) costs a run.

Runs ``conformance run`` serially against the embedded sandbox, in this process so the
ledger can be read afterwards: one warm-up run, then ``--rounds`` pairs of runs with the
ledger on and off (``LEDGER.enabled``; which goes first alternates). Prints JSON: the wall
time of each run and the medians (a shared machine's noise is larger than the difference),
the time one more run spends feeding the ledger (the client's ``record_answer`` and the
sink view's ``_cross_check``, timed around each call), the comparisons that run makes, the
statements fed, the resources held, the ledger's own size (``Ledger.footprint``) and, with
``--tracemalloc``, the memory held by allocations made in ``ledger.py`` at the end of a
traced run (slower, so its time is not counted).

Usage: ``python benchmarks/ledger_cost.py [--rounds 3] [--tracemalloc] [-- run args]``
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import statistics
import tempfile
import time
import tracemalloc
from typing import Any

from conformance.exchange import client, ledger
from conformance.run import cli
from conformance.webhooks.sink import view


def one_run(extra: list[str], *, enabled: bool) -> tuple[float, int]:
    """One serial run: (wall seconds, exit code); the ledger is emptied first."""
    ledger.LEDGER.clear()
    ledger.LEDGER.enabled = enabled
    with tempfile.TemporaryDirectory() as folder, contextlib.redirect_stdout(io.StringIO()):
        started = time.perf_counter()
        code = cli.main(["run", "--report-dir", folder, "-n", "0", *extra])
        return time.perf_counter() - started, code


def timed_feeding(extra: list[str]) -> float:
    """One more run with the ledger on, timing every call that feeds it; the seconds."""
    spent = [0.0]

    def timed(function: Any) -> Any:
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            started = time.perf_counter()
            try:
                return function(*args, **kwargs)
            finally:
                spent[0] += time.perf_counter() - started

        return wrapper

    answers, events = client.record_answer, view.SinkView._cross_check
    client.record_answer = timed(answers)  # type: ignore[assignment]
    view.SinkView._cross_check = timed(events)  # type: ignore[method-assign]
    try:
        one_run(extra, enabled=True)
    finally:
        client.record_answer = answers  # type: ignore[assignment]
        view.SinkView._cross_check = events  # type: ignore[method-assign]
    return spent[0]


def main() -> None:
    """Measure and print the figures as JSON."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--tracemalloc", action="store_true")
    parser.add_argument("extra", nargs="*", help="more conformance run arguments (after --)")
    args = parser.parse_args()
    on: list[float] = []
    off: list[float] = []
    codes: set[int] = set()
    one_run(args.extra, enabled=True)  # a warm-up: the first run in a process is slower
    for round_ in range(args.rounds):
        pairs = ((True, on), (False, off))
        for enabled, times in pairs if round_ % 2 == 0 else pairs[::-1]:
            elapsed, code = one_run(args.extra, enabled=enabled)
            times.append(elapsed)
            codes.add(code)
    feeding = timed_feeding(args.extra)
    result: dict[str, Any] = {
        "exit_codes": sorted(codes),
        "with_ledger_s": [round(t, 2) for t in on],
        "without_ledger_s": [round(t, 2) for t in off],
        "median_with_s": round(statistics.median(on), 2),
        "median_without_s": round(statistics.median(off), 2),
        "feeding_s": round(feeding, 3),
        "comparisons": ledger.LEDGER.comparisons,
        "statements_fed": ledger.LEDGER.statements,
        "resources_held": len(ledger.LEDGER),
        "footprint_bytes": ledger.LEDGER.footprint(),
    }
    if args.tracemalloc:
        tracemalloc.start()
        one_run(args.extra, enabled=True)
        snapshot = tracemalloc.take_snapshot()
        tracemalloc.stop()
        mine = snapshot.filter_traces([tracemalloc.Filter(True, ledger.__file__)])
        result["tracemalloc_ledger_bytes"] = sum(s.size for s in mine.statistics("filename"))
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
