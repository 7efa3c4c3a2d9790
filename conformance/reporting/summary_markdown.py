"""``summary.md``: the run's summary as a reader scans it (the verdict first, then totals, a
row per part, failures, waivers, the comparison with a baseline, advisories and the causes
of skips), rendered from the ``summary.json`` document alone."""

from __future__ import annotations

from typing import Any

from conformance.reporting.baseline import markdown_section
from conformance.reporting.causes import cause_lines
from conformance.reporting.interface_coverage import markdown_lines as coverage_lines
from conformance.reporting.scope import scope_text
from conformance.reporting.skip_reasons import markdown_sections

__all__ = ["TITLES", "render_markdown"]

TITLES = {
    "passed": "PASSED",
    "failed": "FAILED",
    "not_run": "INCOMPLETE (the target could not be tested)",
    "incomplete": "INCOMPLETE (the run did not finish)",
    "no_tests": "NO TEST RAN (nothing was selected, or every test was skipped)",
    "usage_error": "DID NOT RUN (a usage error: fix the command line or the profile)",
}


# What a summary is of, when not a run against the service (its "check" key).
CHECK_TITLES = {"receiver": "Receiver check", "clients": "Client check"}


def render_markdown(summary: dict[str, Any]) -> str:
    """A short human summary: totals, a row per part, failures, advisories."""
    totals = summary["totals"]
    verdict = TITLES.get(summary.get("verdict", "incomplete"), "INCOMPLETE")
    what = CHECK_TITLES.get(str(summary.get("check")), "Conformance run")
    lines = [f"# {what}: {verdict}{scope_text(summary)}", ""]
    if summary.get("causes"):  # what to fix first, one line each (reporting/causes.py)
        lines += ["## Causes", "", *(f"- {line}" for line in cause_lines(summary["causes"])), ""]
    if totals.get("skipped") and summary.get("verdict") in ("passed", "failed"):
        lines += [
            f"**{totals['skipped']} tests were skipped, so their requirements are not covered "
            'by this run: see "Skipped tests, by cause" for what to supply.**',
            "",
        ]
    if summary.get("incomplete_reason"):
        lines += [
            f"**{summary['incomplete_reason']}**",
            "",
            f"- parts that ran: {', '.join(summary.get('parts_run') or []) or 'none'}",
            f"- tests that did not run: {_not_run_text(summary)}",
            "",
        ]
    for note in summary.get("notes") or []:
        lines += [f"> **Note:** {note}", ""]
    lines += [
        f"- interface version: {summary['interface_version']}",
        f"- suite version: {summary['suite_version']}",
        f"- target: {summary['target'].get('base_url')} ({summary['target'].get('environment')})",
        f"- started: {summary['started_at']}, duration {summary['duration_s']:.1f} s",
        f"- totals: {totals['passed']} passed, {totals['failed']} failed, "
        f"{totals['skipped']} skipped, {totals['errors']} errors"
        + (f", {totals['blocked']} blocked" if totals.get("blocked") else "")
        + (f", {totals['waived']} waived" if totals.get("waived") else ""),
        f"- requests sent to the target: {summary.get('requests', 0)}",
        "",
        "| part | passed | failed | skipped | errors |",
        "|---|---|---|---|---|",
    ]
    for part, counts in summary["parts"].items():
        if summary.get("check") and not any(counts.values()):
            continue  # a check of a platform's side covers one or two parts, not all eight
        lines.append(
            f"| {part} | {counts['passed']} | {counts['failed']} | {counts['skipped']} "
            f"| {counts['errors']} |"
        )
    statuses: dict[str, int] = {}
    for requirement in summary["requirements"]:
        status = "failed (waived)" if requirement.get("waived") else requirement["status"]
        statuses[status] = statuses.get(status, 0) + 1
    lines += [
        "",
        "Requirements: " + ", ".join(f"{n} {s}" for s, n in sorted(statuses.items())),
    ]
    if summary["failures"]:
        lines += ["", "## Failures", ""]
        for failure in summary["failures"]:
            first = failure["message"].splitlines()[0] if failure["message"] else ""
            ids = ", ".join(failure["requirements"])
            lines.append(f"- `{failure['nodeid']}` ({failure['part']}; {ids}): {first}")
    lines += _waiver_lines(summary)
    lines += markdown_section(summary)
    if summary["advisories"]:
        lines += ["", "## Advisories (never failing)", ""]
        for advisory in summary["advisories"]:
            lines.append(f"- `{advisory['nodeid']}`: {advisory['message']}")
    lines += markdown_sections(summary)
    lines += coverage_lines(summary)
    return "\n".join(lines) + "\n"


def _waiver_lines(summary: dict[str, Any]) -> list[str]:
    lines: list[str] = []
    if summary.get("waived"):
        lines += ["", "## Waived failures (accepted until their expiry)", ""]
        for waived in summary["waived"]:
            lines.append(f"- `{waived['nodeid']}`: {waived['waiver']}")
    expired = (summary.get("waivers") or {}).get("expired") or []
    if expired:
        lines += ["", "## Expired waivers (they fail the run)", ""]
        for waiver in expired:
            subject = waiver["test"] or f"requirement {waiver['requirement']}"
            lines.append(f"- {subject}: expired {waiver['expires']} ({waiver['reason']})")
    unused = (summary.get("waivers") or {}).get("unused") or []
    if unused:
        names = ", ".join(w["test"] or w["requirement"] for w in unused)
        lines += ["", f"Waivers that matched no failure: {names}"]
    return lines


def _not_run_text(summary: dict[str, Any]) -> str:
    """How many tests did not run; a run stopped before collecting any (a failed preflight)
    counts none, which must not read as "nothing was missed"."""
    count = summary.get("not_run") or 0
    if not count and not summary.get("parts_run") and not summary.get("tests"):
        return "all (the run stopped before the tests were collected)"
    return str(count)
