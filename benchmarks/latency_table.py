"""The runs against a remote target: one sandbox answering every request late, shared by all
workers, with the full profile (second platform, wallet settings), serial and at each worker
count; a table of wall times and speed-ups, and each run's critical path.

``bench.py --latencies 10,50,150 --latency-workers 4,8,16`` runs it; the runs of one latency
are taken back to back (serial first), so the speed-ups compare runs of the same minute.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any

from critical_path import describe

RunSuite = Callable[..., dict[str, Any]]


def latency_series(
    run_suite: RunSuite, latencies_ms: list[int], workers: list[int]
) -> dict[str, list[dict[str, Any]]]:
    """For each latency, a serial run and one per worker count (each with its critical
    path); the critical paths are printed to stderr as each run ends."""
    series: dict[str, list[dict[str, Any]]] = {}
    for ms in latencies_ms:
        delay = f"--response-delay {ms / 1000:g}"
        runs: list[dict[str, Any]] = []
        for n in [None, *workers]:
            run = run_suite(n, embedded_args=delay, sandboxes=1)
            run["speedup_vs_serial"] = round(runs[0]["wall_s"] / run["wall_s"], 2) if runs else 1.0
            runs.append(run)
            label = f"{ms} ms, {'serial' if n is None else f'-n {n}'}"
            print(describe(label, run["critical_path"]), file=sys.stderr, flush=True)
        series[f"{ms}_ms"] = runs
    return series


def _cell(run: dict[str, Any]) -> str:
    text = f"{run['wall_s']} s"
    if run["workers"] > 1:
        text += f" ({run['speedup_vs_serial']}x)"
    return text if run["exit_code"] == 0 else f"{text} exit {run['exit_code']}"


def table(series: dict[str, list[dict[str, Any]]]) -> str:
    """A Markdown table: one row per latency, wall time and speed-up per worker count."""
    counts = [run["workers"] for run in next(iter(series.values()), [])]
    heads = ["serial" if n == 1 else f"-n {n}" for n in counts]
    lines = [
        "| latency | " + " | ".join(heads) + " |",
        "|---|" + "---|" * len(heads),
    ]
    for key, runs in series.items():
        cells = [_cell(run) for run in runs]
        lines.append(f"| {key.replace('_', ' ')} | " + " | ".join(cells) + " |")
    return "\n".join(lines)
