"""``--baseline FILE``: compare this run's failures with an earlier ``summary.json``.

The summary gains ``baseline: {file, verdict, new_failures, fixed, still_failing}``:
failures this run has that the baseline had not, failures of the baseline whose tests now
pass, and the count of failures both share. A test the baseline failed that did not run
this time is neither new nor fixed.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import pytest

from conformance.run.options import BASELINE_ENV, BASELINE_FLAG

__all__ = [
    "BASELINE_ENV",
    "BASELINE_FLAG",
    "compare",
    "from_config",
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
    passed: Iterable[str],
) -> dict[str, Any]:
    before = {f["nodeid"]: f for f in baseline.get("failures", []) if "nodeid" in f}
    now = {f["nodeid"]: f for f in failures}
    passed_now = set(passed)
    return {
        "file": path,
        "verdict": baseline.get("verdict"),
        "started_at": baseline.get("started_at"),
        "new_failures": [
            {"nodeid": n, "message": f.get("message", "")}
            for n, f in now.items()
            if n not in before
        ],
        "fixed": [{"nodeid": n} for n in before if n in passed_now],
        "still_failing": sum(1 for n in now if n in before),
    }


def markdown_section(summary: Mapping[str, Any]) -> list[str]:
    view = summary.get("baseline")
    if not view:
        return []
    lines = [
        "",
        f"## Compared with the baseline ({view['file']}, {view.get('started_at')})",
        "",
        f"- new failures: {len(view['new_failures'])}",
        f"- fixed: {len(view['fixed'])}",
        f"- still failing: {view['still_failing']}",
    ]
    for failure in view["new_failures"]:
        first = failure["message"].splitlines()[0] if failure["message"] else ""
        lines.append(f"- NEW `{failure['nodeid']}`: {first}")
    for fixed in view["fixed"]:
        lines.append(f"- FIXED `{fixed['nodeid']}`")
    return lines


def from_config(config: pytest.Config) -> tuple[str, dict[str, Any]] | None:
    """The ``--baseline`` summary of this run, read at start-up (usage errors come early)."""
    import os

    path = config.getoption("conformance_baseline", None) or os.environ.get(BASELINE_ENV)
    return (str(path), load_baseline(str(path))) if path else None
