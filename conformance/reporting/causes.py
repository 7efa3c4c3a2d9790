"""Causes: one entry per distinct defect a run met, and the tests it failed or blocked.

A check of every answer (``exchange/answer_checks.py``) charges what it finds to the
requirement of the answer it read (``ConformanceFailure.charged_to``). A test whose own
requirements hold that requirement fails; any other test that meets the same defect on the
way could not go on: it ends **blocked**, written as skipped in JUnit with the cause in its
message, counted apart in the summaries, and the charged requirement fails once, for all
of them. Failures with the same clause and the same observed difference are one cause,
however many tests met them (summary.json ``causes``; one line each on the console, in
summary.md and in the Action's outputs).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = [
    "BLOCKED_PROPERTY",
    "CAUSE_PROPERTY",
    "Cause",
    "blocked_reason",
    "cause_lines",
    "charge",
    "charged_failure",
    "settle",
    "show_blocked_as_broken",
    "summarize",
]

BLOCKED_PROPERTY = "conformance_blocked"  # a test that met another requirement's defect
CAUSE_PROPERTY = "conformance_cause"  # a failure charged to the test's own requirement
# identifiers and instants differ from test to test; the defect does not
_VARYING = re.compile(
    r"[A-Za-z]+:[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"
    r"|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"
    r"|\d{4}-\d\d-\d\dT[0-9:.]+(?:Z|[+-]\d\d:\d\d)?"
    r"|\(\d+ ms\)|:\d{2,5}/"
)


@dataclass(frozen=True, slots=True)
class Cause:
    """What one test met: the clause, the requirement charged, one sentence observed."""

    clause: str
    requirement: str | None
    observed: str

    def to_property(self) -> str:
        return json.dumps({"clause": self.clause, "requirement": self.requirement,
                           "observed": self.observed})  # fmt: skip

    @classmethod
    def from_property(cls, text: str) -> Cause:
        data = json.loads(text)
        return cls(str(data["clause"]), data.get("requirement"), str(data["observed"]))


def charged_failure(failure: BaseException) -> Cause | None:
    """The cause an answer check charged ``failure`` to, if one did."""
    charged = getattr(failure, "charged_to", None)
    if not isinstance(charged, str):
        return None
    observed = getattr(failure, "cause", None) or str(getattr(failure, "statement", failure))
    return Cause(str(getattr(failure, "clause", "")), charged, _steady(str(observed)))


def blocked_reason(cause: Cause) -> str:
    """The skip message of a blocked test (JUnit, the console)."""
    return (
        f"blocked: {cause.clause}: {cause.observed} (charged to {cause.requirement}; this test "
        "could not go on without that answer)"
    )


def _steady(text: str) -> str:
    return _VARYING.sub("…", " ".join(text.split()))


def _of_message(message: str, requirements: Sequence[str]) -> Cause:
    """The cause of an ordinary failure, from its message's first line."""
    first = message.strip().splitlines()[0] if message.strip() else "failed"
    clause, sep, observed = first.partition(": ")
    if not sep:
        clause, observed = "", first
    return Cause(clause, requirements[0] if requirements else None, _steady(observed))


def summarize(results: Iterable[Any]) -> list[dict[str, Any]]:
    """summary.json's ``causes``: one entry per (clause, observed), most tests first."""
    grouped: dict[tuple[str, str], dict[str, Any]] = {}
    for result in results:
        cause: Cause | None = getattr(result, "cause", None)
        if result.outcome in ("failed", "errors") and cause is None:
            cause = _of_message(result.message or "", result.requirements)
        if cause is None or result.outcome not in ("failed", "errors", "blocked"):
            continue
        entry = grouped.setdefault(
            (cause.clause, cause.observed),
            {"clause": cause.clause, "requirement": cause.requirement,
             "observed": cause.observed, "failed": [], "blocked": [], "charged": []},
        )  # fmt: skip
        entry["blocked" if result.outcome == "blocked" else "failed"].append(result.nodeid)
        entry["charged"].append(cause.requirement)
    for entry in grouped.values():
        # named after the requirement most of its tests were charged to (a 5xx's operation
        # requirement, say, rather than the first failed test's own)
        charged = entry.pop("charged")
        entry["requirement"] = max(charged, key=lambda rid: (charged.count(rid), rid is not None))
    return sorted(grouped.values(), key=lambda e: -(len(e["failed"]) + len(e["blocked"])))


def cause_lines(causes: Sequence[dict[str, Any]], limit: int = 20) -> list[str]:
    """One line per cause, for the console, summary.md and the Action's outputs."""
    lines = []
    for entry in causes[:limit]:
        met = f"{len(entry['failed'])} failed, {len(entry['blocked'])} blocked"
        charged = f" [{entry['requirement']}]" if entry.get("requirement") else ""
        lines.append(f"{entry['clause']}{charged}: {entry['observed']} ({met})")
    if len(causes) > limit:
        lines.append(f"... and {len(causes) - limit} more causes (summary.json)")
    return lines


def charge(report: Any, requirements: Sequence[str], failure: BaseException | None) -> None:
    """Charge a failed phase's report: to the test itself when the defect's requirement (or
    another the same defect belongs to, ``ConformanceFailure.owners``) is one of its own
    (``CAUSE_PROPERTY``, naming that one), else the test is blocked (skipped, the cause in
    its message, ``BLOCKED_PROPERTY``)."""
    cause = None if failure is None or not report.failed else charged_failure(failure)
    if cause is None:
        _charge_named(report, requirements, failure)
        return
    owners = (cause.requirement, *getattr(failure, "owners", ()))
    mine = next((rid for rid in owners if rid in requirements), None)
    if mine is not None:
        own = Cause(cause.clause, mine, cause.observed)
        report.user_properties.append((CAUSE_PROPERTY, own.to_property()))
        return
    report.user_properties.append((BLOCKED_PROPERTY, cause.to_property()))
    path, lineno, _ = report.location
    report.outcome = "skipped"
    report.longrepr = (str(path), (lineno or 0) + 1, blocked_reason(cause))


def _charge_named(report: Any, requirements: Sequence[str], failure: BaseException | None) -> None:
    """A failing assertion that names the requirement it checks
    (``ConformanceFailure.requirement``) fails only that one of the test's requirements; one
    naming none, or a requirement the test does not carry, fails them all, as before."""
    named = getattr(failure, "requirement", None)
    if failure is None or not report.failed or named not in requirements:
        return
    own = _of_message(str(failure), [str(named)])
    steady = getattr(failure, "cause", None)  # one sentence for every test that meets it
    if steady:
        own = Cause(own.clause, own.requirement, _steady(str(steady)))
    report.user_properties.append((CAUSE_PROPERTY, own.to_property()))


def settle(results: Iterable[Any]) -> None:
    """Charge each defect once: a blocked test whose cause (same clause, same observed
    difference) failed a test that owns it is charged to the requirement that test failed,
    not to the defect's first owner as well."""
    results = list(results)
    failed: dict[tuple[str, str], list[str]] = {}
    for r in results:
        if r.outcome in ("failed", "errors") and r.cause is not None:
            failed.setdefault((r.cause.clause, r.cause.observed), []).append(r.cause.requirement)
    for result in results:
        cause = result.cause
        if result.outcome != "blocked" or cause is None:
            continue
        charged = failed.get((cause.clause, cause.observed), [])
        if charged and cause.requirement not in charged:  # kept when a test failed it too
            result.cause = Cause(cause.clause, charged[0], cause.observed)
            result.message = blocked_reason(result.cause)


_BLOCKED_TRACE = re.compile(r"'(blocked: .*?\(charged to ([A-Z0-9-]+);.*?)'\)\s*$", re.S)


def show_blocked_as_broken(allure_dir: Path) -> int:
    """Allure shows a blocked test as broken (not skipped), its cause as the message and a
    link to it; how many results were rewritten. allure-pytest wrote them as skipped, with
    the skip's reason in the trace."""
    rewritten = 0
    for path in allure_dir.glob("*-result.json"):
        try:
            result = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        details = result.get("statusDetails") or {}
        found = _BLOCKED_TRACE.search(str(details.get("trace", "")))
        if result.get("status") != "skipped" or found is None:
            continue
        result["status"] = "broken"
        result["statusDetails"] = {"message": found.group(1)}
        link = {"type": "link", "name": f"cause: {found.group(2)}", "url": "summary.md#causes"}
        result["links"] = [*result.get("links", []), link]
        path.write_text(json.dumps(result), encoding="utf-8")
        rewritten += 1
    return rewritten
