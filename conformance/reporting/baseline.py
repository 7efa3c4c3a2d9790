"""``--baseline FILE``: compare this run with an earlier ``summary.json``.

The summary gains ``baseline: {file, verdict, started_at, new_failures, regressions, fixed,
still_failing}``: failures this run has that the baseline had not; regressions, every test
the baseline passed that does not pass now (failed, errored, waived, skipped, or untested:
not run at all); failures of the baseline whose tests now pass; and the count of failures
both share. A test the baseline failed that did not run this time is neither new nor fixed.
The console's end says the same (``console_lines``).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import pytest

from conformance.ground.options import BASELINE_ENV, BASELINE_FLAG

__all__ = [
    "BASELINE_ENV",
    "BASELINE_FLAG",
    "compare",
    "console_lines",
    "load",
    "load_baseline",
    "markdown_section",
    "preload",
]


# path (resolved) -> its text, read before the run claimed its report folder
_PRELOADED: dict[Path, str] = {}


def preload(path: str) -> None:
    """Read the baseline now: it may be the earlier run's summary in the folder this run is
    about to claim (``--baseline reports/summary.json``), removed before the plugin reads
    it. An unreadable file is left for ``load_baseline`` to report."""
    try:
        file = Path(path).resolve()
        _PRELOADED[file] = file.read_text(encoding="utf-8")
    except (OSError, ValueError):
        return


def load_baseline(path: str) -> dict[str, Any]:
    """The earlier summary; a usage error when it is not one."""
    file = Path(path)
    try:
        preloaded = _PRELOADED.get(file.resolve())
        text = preloaded if preloaded is not None else file.read_text(encoding="utf-8")
        data = json.loads(text)
    except (OSError, ValueError) as exc:
        raise pytest.UsageError(
            f"conformance: {BASELINE_FLAG}={path!r}: cannot read a summary.json ({exc}). "
            "Give the summary.json of an earlier run."
        ) from exc
    if not isinstance(data, dict) or not isinstance(data.get("failures"), list):
        raise pytest.UsageError(
            f"conformance: {BASELINE_FLAG}={path!r}: not a conformance summary.json "
            "(no `failures` list). Give the summary.json of an earlier run."
        )
    return data


def compare(
    path: str,
    baseline: Mapping[str, Any],
    failures: Iterable[Mapping[str, Any]],
    tests: Iterable[Mapping[str, Any]],
) -> dict[str, Any]:
    """The comparison of this run (its ``failures`` and ``tests`` as ``summary.json`` lists
    them) with the ``baseline`` summary read from ``path``."""
    before = {f["nodeid"]: f for f in baseline.get("failures", []) if "nodeid" in f}
    now = {f["nodeid"]: f for f in failures}
    outcomes = {t["nodeid"]: t for t in tests}
    passed_before = [
        t["nodeid"]
        for t in baseline.get("tests") or ()
        if isinstance(t, Mapping) and t.get("outcome") == "passed" and "nodeid" in t
    ]
    regressions = []
    for nodeid in passed_before:
        test = outcomes.get(nodeid)
        outcome = test["outcome"] if test else "untested"
        if outcome != "passed":
            message = now.get(nodeid, {}).get("message", "") or (test or {}).get("message", "")
            regressions.append({"nodeid": nodeid, "before": "passed", "now": outcome,
                                "message": message or _UNTESTED.get(outcome, "")})  # fmt: skip
    return {
        "file": path,
        "verdict": baseline.get("verdict"),
        "started_at": baseline.get("started_at"),
        "new_failures": [
            {"nodeid": n, "message": f.get("message", "")}
            for n, f in now.items()
            if n not in before
        ],
        "regressions": regressions,
        "fixed": [{"nodeid": n} for n in before if outcomes.get(n, {}).get("outcome") == "passed"],
        "still_failing": sum(1 for n in now if n in before),
        "tests_compared": isinstance(baseline.get("tests"), list),
    }


_UNTESTED = {"untested": "not run by this run (deselected, its part not run, or removed)"}


def markdown_section(summary: Mapping[str, Any]) -> list[str]:
    view = summary.get("baseline")
    if not view:
        return []
    regressions = view.get("regressions") or []
    lines = [
        "",
        f"## Compared with the baseline ({view['file']}, {view.get('started_at')})",
        "",
        f"- new failures: {len(view['new_failures'])}",
        f"- regressions (passed in the baseline, not now): {len(regressions)}",
        f"- fixed: {len(view['fixed'])}",
        f"- still failing: {view['still_failing']}",
    ]
    for failure in view["new_failures"]:
        first = failure["message"].splitlines()[0] if failure["message"] else ""
        lines.append(f"- NEW `{failure['nodeid']}`: {first}")
    for regression in regressions:
        if regression["now"] not in ("failed", "errors"):  # those are the new failures above
            first = regression["message"].splitlines()[0] if regression["message"] else ""
            lines.append(f"- REGRESSED `{regression['nodeid']}`: now {regression['now']}: {first}")
    for fixed in view["fixed"]:
        lines.append(f"- FIXED `{fixed['nodeid']}`")
    if not view.get("tests_compared", True):
        lines.append(f"- {_NO_TESTS}")
    return lines


_NO_TESTS = (
    "the baseline lists no test outcomes (an older summary.json): tests that passed then and "
    "were skipped or not run now cannot be told"
)


def console_lines(view: Mapping[str, Any]) -> list[str]:
    """The comparison as the console's end shows it: counts, then each regression."""
    regressions = view.get("regressions") or []
    lines = [
        f"conformance: compared with the baseline {view['file']} ({view.get('started_at')}): "
        f"{len(regressions)} regression(s), {len(view['new_failures'])} new failure(s), "
        f"{len(view['fixed'])} fixed, {view['still_failing']} still failing"
    ]
    for regression in regressions:
        first = regression["message"].splitlines()[0] if regression["message"] else ""
        lines.append(f"  REGRESSED {regression['nodeid']}: now {regression['now']}: {first}"[:300])
    for fixed in view["fixed"]:
        lines.append(f"  FIXED {fixed['nodeid']}")
    if not view.get("tests_compared", True):
        lines.append(f"  ({_NO_TESTS})")
    return lines


def load(path: str | None) -> tuple[str, dict[str, Any]] | None:
    """The ``--baseline`` of this run (the profile's), read at start-up: usage errors come
    before any request."""
    return (path, load_baseline(path)) if path else None
