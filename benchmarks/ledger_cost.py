"""Benchmark: what the cross-check ledger (``conformance/exchange/ledger.py``) costs a run.

Runs ``conformance run`` serially against the embedded sandbox, in this process so the
ledger can be read afterwards, alternately with the ledger on and off (``LEDGER.enabled``),
``--rounds`` times each, and prints JSON: the wall time of each run and the medians, the
comparisons a run with the ledger makes, the resources and currencies it holds, its own
size (``Ledger.footprint``) and the memory tracemalloc saw allocated by ``ledger.py`` at the
end of the last run with it on (``--tracemalloc``: that run is slower, so its time is not
counted).

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

from conformance.exchange import ledger
from conformance.run import cli


def one_run(extra: list[str], *, enabled: bool) -> tuple[float, int]:
    """One serial run: (wall seconds, exit code); the ledger is emptied first."""
    ledger.LEDGER.clear()
    ledger.LEDGER.enabled = enabled
    with tempfile.TemporaryDirectory() as folder, contextlib.redirect_stdout(io.StringIO()):
        started = time.perf_counter()
        code = cli.main(["run", "--report-dir", folder, "-n", "0", *extra])
        return time.perf_counter() - started, code


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
    for _ in range(args.rounds):
        for enabled, times in ((True, on), (False, off)):
            elapsed, code = one_run(args.extra, enabled=enabled)
            times.append(elapsed)
            codes.add(code)
    one_run(args.extra, enabled=True)
    result: dict[str, Any] = {
        "exit_codes": sorted(codes),
        "with_ledger_s": [round(t, 2) for t in on],
        "without_ledger_s": [round(t, 2) for t in off],
        "median_with_s": round(statistics.median(on), 2),
        "median_without_s": round(statistics.median(off), 2),
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
