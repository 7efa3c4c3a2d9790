"""What a run's wall time is made of, read off its timeline (``run_timeline.py``).

A run's wall time is its start-up (the command's start to the first test's set-up), the
test phase (first set-up to last teardown) and its end (the last teardown to the command's
exit). Inside the test phase, what keeps workers idle shows as the time when fewer tests
run than there are workers: the sections where a single test runs alone (a configuration
change holding its platform's lock, a long test no other can overlap), and the tail, from
the moment the first worker has nothing left to the last test's end.
"""

from __future__ import annotations

from typing import Any

TOP = 5  # longest tests and sections listed
MIN_SECTION_S = 0.2  # shorter moments alone are noise between two tests


def critical_path(
    timeline: dict[str, Any], command_start: float, command_end: float, workers: int,
    waits_s: list[float],
) -> dict[str, Any]:  # fmt: skip
    """The parts of a run's wall time, in seconds; ``timeline`` is what ``run_timeline``
    wrote, the command's start and end are wall-clock times (``time.time()``)."""
    tests = [
        {"nodeid": nodeid, "worker": t["worker"], "start": t["start"], "stop": t["stop"]}
        for nodeid, t in timeline.get("tests", {}).items()
        if "start" in t and "stop" in t
    ]
    if not tests:
        return {"wall_s": round(command_end - command_start, 2), "tests": 0}
    first = min(t["start"] for t in tests)
    last = max(t["stop"] for t in tests)
    by_worker: dict[str, float] = {}
    for t in tests:
        by_worker[t["worker"]] = max(by_worker.get(t["worker"], 0.0), t["stop"])
    levels, alone = _concurrency(tests, first, last)
    busy = sum(t["stop"] - t["start"] for t in tests)
    longest = sorted(tests, key=lambda t: t["start"] - t["stop"])[:TOP]
    marks = timeline.get("session", {})
    return {
        "wall_s": round(command_end - command_start, 2),
        "start_up_s": round(first - command_start, 2),
        # the start-up's parts: to the end of pytest's configuration (the sandbox started,
        # the target checked, the sink registered), to the last worker's collection
        "configured_at_s": _since(marks.get("configured"), command_start),
        "collected_at_s": _since(marks.get("collected"), command_start),
        "test_phase_s": round(last - first, 2),
        "end_s": round(command_end - last, 2),
        "tests_time_sum_s": round(busy, 2),
        "workers_busy": round(busy / ((last - first) * max(1, workers)), 2) if last > first else 0,
        "seconds_at_concurrency": {str(n): round(s, 2) for n, s in sorted(levels.items())},
        "alone_s": round(levels.get(1, 0.0), 2) if workers > 1 else None,
        "alone_sections": alone if workers > 1 else [],
        "tail_s": round(last - min(by_worker.values()), 2) if workers > 1 else None,
        "longest_tests": [_entry(t, command_start) for t in longest],
        "waits_s": waits_s,
    }


def _since(moment: float | None, origin: float) -> float | None:
    return None if moment is None else round(moment - origin, 2)


def _entry(test: dict[str, Any], origin: float) -> dict[str, Any]:
    return {"nodeid": test["nodeid"], "s": round(test["stop"] - test["start"], 2),
            "at_s": round(test["start"] - origin, 2)}  # fmt: skip


def _concurrency(
    tests: list[dict[str, Any]], first: float, last: float
) -> tuple[dict[int, float], list[dict[str, Any]]]:
    """Seconds spent at each number of tests running at once, and the longest sections in
    which one test ran alone (with the test)."""
    edges = sorted([(t["start"], 1, t["nodeid"]) for t in tests]
                   + [(t["stop"], -1, t["nodeid"]) for t in tests])  # fmt: skip
    levels: dict[int, float] = {}
    running: set[str] = set()
    sections: list[dict[str, Any]] = []
    at = first
    for moment, step, nodeid in edges:
        span = moment - at
        if span > 0:
            levels[len(running)] = levels.get(len(running), 0.0) + span
            if len(running) == 1:
                (alone,) = running
                if sections and sections[-1]["nodeid"] == alone and sections[-1]["end"] == at:
                    sections[-1]["end"] = moment
                else:
                    sections.append({"nodeid": alone, "begin": at, "end": moment})
        at = moment
        if step > 0:
            running.add(nodeid)
        else:
            running.discard(nodeid)
    found = [
        {"nodeid": s["nodeid"], "s": round(s["end"] - s["begin"], 2),
         "at_s": round(s["begin"] - first, 2)}
        for s in sections if s["end"] - s["begin"] >= MIN_SECTION_S
    ]  # fmt: skip
    found.sort(key=lambda s: -s["s"])
    return levels, found[:TOP]


def describe(label: str, path: dict[str, Any]) -> str:
    """One paragraph a person reads: where this run's wall time went."""
    if "start_up_s" not in path:
        return f"{label}: {path['wall_s']} s, no test ran"
    lines = [
        f"{label}: {path['wall_s']} s = start-up {path.get('start_up_s')} s + tests "
        f"{path.get('test_phase_s')} s + end {path.get('end_s')} s",
        f"  start-up: configured (sandbox, preflight, sink) at {path.get('configured_at_s')} s, "
        f"tests collected (every worker) at {path.get('collected_at_s')} s",
    ]
    if path.get("alone_s") is not None:
        lines.append(
            f"  inside the tests: {path['alone_s']} s with one test running alone, tail "
            f"{path['tail_s']} s, workers busy {int(100 * path['workers_busy'])}% "
            f"(seconds at each concurrency {path['seconds_at_concurrency']})"
        )
        lines += [
            f"  alone {s['s']} s at +{s['at_s']} s: {s['nodeid']}" for s in path["alone_sections"]
        ]
    lines += [f"  long {t['s']} s at {t['at_s']} s: {t['nodeid']}" for t in path["longest_tests"]]
    if path.get("waits_s"):
        lines.append(f"  waits on the target's clock: {path['waits_s']} s")
    return "\n".join(lines)
