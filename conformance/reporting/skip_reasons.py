"""Why tests were skipped and requirements left untested, grouped by what to supply.

The summaries list every skip under its cause (a missing credential or setting, a feature
the profile does not enable, an adapter hook, production writes being off, sandbox behaviour
in production, or the target's own answers) with the setting, feature or hook that would
let the tests run; and every requirement no test checked, with the reason.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from conformance.contract.markers import SANDBOX_ONLY

__all__ = [
    "SkipCause",
    "classify_skip",
    "group_skips",
    "markdown_sections",
    "skip_subject",
    "untested",
]

_FEATURE = re.compile(r"feature '([^']+)' is not enabled")
_HOOK = re.compile(r"needs adapter hook '([^']+)'")
_FLAGS = re.compile(r"(--[a-z][a-z0-9-]+)")
_CREDENTIAL_WORDS = ("credentials", "needs the ", "needs a second supported")

CAUSES = {
    "missing_setting": "a setting or credential the profile lacks",
    "feature": "a feature the profile does not enable",
    "adapter_hook": "an adapter hook no --adapter module implements",
    "production_writes": "production writes are off",
    "environment": "sandbox behaviour, and the target is production",
    "target": "the target's own answers or choices (nothing to supply)",
}


@dataclass(frozen=True, slots=True)
class SkipCause:
    cause: str  # a key of CAUSES
    supply: str  # what would let the test run ("" for the target's own choices)


def classify_skip(message: str) -> SkipCause:
    """The cause of one skip reason, and what to supply to lift it."""
    if match := _FEATURE.search(message):
        return SkipCause("feature", f"--features {match.group(1)} (if the target has it)")
    if match := _HOOK.search(message):
        hook = match.group(1)
        name = hook if hook.startswith("pytest_conformance_") else f"pytest_conformance_{hook}"
        return SkipCause("adapter_hook", f"--adapter MODULE implementing {name}")
    if "off in production" in message:
        return SkipCause("production_writes", "--allow-production-writes true")
    if SANDBOX_ONLY in message:
        return SkipCause("environment", "a sandbox target (--target-environment sandbox)")
    if any(word in message for word in _CREDENTIAL_WORDS):
        flags = list(dict.fromkeys(_FLAGS.findall(message)))
        return SkipCause("missing_setting", " and ".join(flags) or message)
    return SkipCause("target", "")


def skip_subject(message: str) -> tuple[str, ...]:
    """What a skip reason names: its feature, its adapter hook (full name), or the flags of
    the settings it lacks; nothing for the target's own answers."""
    if match := _FEATURE.search(message):
        return (match.group(1),)
    if match := _HOOK.search(message):
        hook = match.group(1)
        return (hook if hook.startswith("pytest_conformance_") else f"pytest_conformance_{hook}",)
    return tuple(dict.fromkeys(_FLAGS.findall(message)))


def group_skips(skipped: Iterable[tuple[str, str]]) -> list[dict[str, Any]]:
    """``(nodeid, reason)`` pairs grouped by cause and remedy, most tests first."""
    groups: dict[SkipCause, dict[str, Any]] = {}
    for nodeid, reason in skipped:
        cause = classify_skip(reason)
        key = cause if cause.cause != "target" else SkipCause("target", reason)
        group = groups.setdefault(
            key,
            {
                "cause": cause.cause,
                "cause_text": CAUSES[cause.cause],
                "supply": cause.supply,
                "reasons": [],
                "tests": [],
            },
        )
        if reason not in group["reasons"]:
            group["reasons"].append(reason)
        group["tests"].append(nodeid)
    ordered = sorted(groups.values(), key=lambda g: (g["cause"] == "target", -len(g["tests"])))
    for group in ordered:
        group["count"] = len(group["tests"])
    return ordered


def untested(
    statuses: Iterable[Mapping[str, str]],
    catalogue: Iterable[Any],
    parts_selected: Iterable[str],
) -> list[dict[str, str]]:
    """Every requirement no test checked in this run, with why."""
    info = {r.id: r for r in catalogue}
    selected = set(parts_selected)
    rows = []
    for status in statuses:
        if status["status"] != "untested":
            continue
        requirement = info.get(status["id"])
        testability = getattr(requirement, "testability", "testable")
        reason = getattr(requirement, "reason", None)
        if testability in ("production-only", "not-testable") and reason:
            why = f"{testability}: {reason}"
        elif status["part"] not in selected:
            why = f"part '{status['part']}' was not selected (--parts)"
        else:
            why = "no test checking it was selected in this run (-k/-m or deselection)"
        rows.append(
            {"id": status["id"], "part": status["part"], "testability": testability, "why": why}
        )
    return rows


def markdown_sections(summary: Mapping[str, Any]) -> list[str]:
    """The skip and untested sections of ``summary.md``."""
    lines: list[str] = []
    skips = summary.get("skips") or []
    if skips:
        lines += ["", "## Skipped tests, by cause", ""]
        lines += ["| tests | cause | supply | reason |", "|---|---|---|---|"]
        for group in skips:
            reason = "; ".join(group["reasons"][:3])
            more = len(group["reasons"]) - 3
            if more > 0:
                reason += f" (+{more} more)"
            supply = f"`{group['supply']}`" if group["supply"] else "nothing"
            lines.append(
                f"| {group['count']} | {group['cause_text']} | {supply} | {_cell(reason)} |"
            )
        lines += ["", "<details><summary>Skipped tests</summary>", ""]
        for group in skips:
            for nodeid in group["tests"]:
                lines.append(f"- `{nodeid}`: {group['cause_text']}")
        lines += ["", "</details>"]
    rows = summary.get("untested") or []
    if rows:
        lines += ["", f"## Untested requirements ({len(rows)})", ""]
        lines += ["| requirement | part | why |", "|---|---|---|"]
        for row in rows:
            lines.append(f"| {row['id']} | {row['part']} | {_cell(row['why'])} |")
    return lines


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")
