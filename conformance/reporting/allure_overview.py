"""What the Allure report's overview says of a run: its verdict, its target, the kit.

Allure Report 3 shows the ``environment.properties`` file of a results folder as the
overview's "Metadata" (a pair of columns of short values), and any Allure generator reads
it. The summary writer keeps it in step with ``summary.json``: written with the start-up
placeholder (INCOMPLETE) and again at the end, so a report built from an interrupted run
never reads PASSED. ``conformance report`` also puts the verdict in the report's name.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from conformance.ground.redaction import write_text

__all__ = ["ENVIRONMENT_FILE", "VERDICTS", "overview", "read_overview", "write_overview"]

ENVIRONMENT_FILE = "environment.properties"
# Short verdicts for the overview (summary.md has the long ones).
VERDICTS = {
    "passed": "PASSED",
    "failed": "FAILED",
    "not_run": "INCOMPLETE: the target could not be tested",
    "incomplete": "INCOMPLETE: the run did not finish",
    "no_tests": "NO TEST RAN",
}


def overview(summary: Mapping[str, Any]) -> dict[str, str]:
    """The overview's entries, in the order shown, from a ``summary.json`` dict."""
    totals = summary.get("totals") or {}
    target = summary.get("target") or {}
    counts = ", ".join(
        f"{totals.get(name, 0)} {name}" for name in ("passed", "failed", "skipped", "errors")
    )
    if totals.get("waived"):
        counts += f", {totals['waived']} waived"
    entries = {
        "verdict": VERDICTS.get(str(summary.get("verdict")), "INCOMPLETE"),
        "tests": counts,
        "target": str(target.get("base_url") or "the embedded reference sandbox"),
        "environment": str(target.get("environment") or ""),
        "kit": f"gpsi-conformance {summary.get('suite_version')}",
        "interface": str(summary.get("interface_version") or ""),
        "started": str(summary.get("started_at") or ""),
    }
    if summary.get("incomplete_reason"):
        entries["reason"] = str(summary["incomplete_reason"])
    return entries


def _escape(value: str) -> str:
    """A value as a Java properties file holds it (one line; leading blanks kept)."""
    text = value.replace("\\", "\\\\").replace("\n", "\\n").replace("\r", "\\r")
    return "\\" + text if text[:1] in (" ", "\t") else text


def write_overview(results_dir: Path, summary: Mapping[str, Any]) -> None:
    """Write the overview of ``summary`` into the Allure results folder (if it exists)."""
    if not results_dir.is_dir():
        return
    lines = [f"{key}={_escape(value)}" for key, value in overview(summary).items()]
    write_text(results_dir / ENVIRONMENT_FILE, "\n".join(lines) + "\n")


def read_overview(results_dir: Path) -> dict[str, str]:
    """The entries a run wrote (for the report's name); empty when there are none."""
    try:
        text = (results_dir / ENVIRONMENT_FILE).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return {}
    entries: dict[str, str] = {}
    for line in text.splitlines():
        key, sep, value = line.partition("=")
        if sep and not key.startswith(("#", "!")):
            entries[key.strip()] = _unescape(value)
    return entries


def _unescape(value: str) -> str:
    out: list[str] = []
    chars = iter(value)
    for char in chars:
        if char == "\\":
            escaped = next(chars, "")
            out.append({"n": "\n", "r": "\r", "t": "\t"}.get(escaped, escaped))
        else:
            out.append(char)
    return "".join(out)
