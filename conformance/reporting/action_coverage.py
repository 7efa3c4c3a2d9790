"""The GitHub Action's outputs that say what a verdict covers: the headline, the scope, the
requirements decided, the interface coverage and, for check "certify", the certificate.

``action_outputs.main`` prints these after ``verdict=``; they come from this run's own
``summary.json`` (``action_outputs.this_runs_summary``) and are empty when the run wrote
none, so an earlier run's scope is never reported as this one's.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from conformance.reporting.interface_coverage import headline_counts
from conformance.reporting.scope import scope, scope_line, scope_text

__all__ = ["CERTIFICATE_NAME", "coverage_outputs"]

CERTIFICATE_NAME = "certification.zip"
_TITLES = {"passed": "PASSED", "failed": "FAILED", "no_tests": "NO TEST RAN"}


def _one_line(value: str) -> str:
    """A value ``$GITHUB_OUTPUT`` takes as ``name=value`` (one line)."""
    return " ".join(value.split())


def coverage_outputs(
    verdict: str, summary: Mapping[str, Any] | None, report_dir: Path, since: float
) -> list[str]:
    """``name=value`` lines: headline, scope, requirements-decided, requirements-total,
    interface-coverage, certificate and certificate-coverage."""
    title = _TITLES.get(verdict, verdict.upper().replace("_", " "))
    if summary is None:
        return [f"headline={title}", "scope=", "requirements-decided=", "requirements-total=",
                "interface-coverage=", "certificate=", "certificate-coverage="]  # fmt: skip
    told = {**summary, "verdict": verdict}  # the exit code's verdict, as the headline says
    counts = (summary.get("scope") or scope(summary))["requirements"]
    interface = summary.get("interface_coverage")
    lines = [
        f"headline={_one_line(title + scope_text(told))}",
        f"scope={_one_line(scope_line(summary))}",
        f"requirements-decided={counts['decided']}",
        f"requirements-total={counts['total']}",
        "interface-coverage="
        + (
            "; ".join(f"{k} {v}" for k, v in headline_counts(interface).items())
            if isinstance(interface, Mapping)
            else ""
        ),
    ]
    return lines + _certificate_lines(verdict, summary, report_dir, since)


def _certificate_lines(
    verdict: str, summary: Mapping[str, Any], report_dir: Path, since: float
) -> list[str]:
    """The bundle this run wrote, and its coverage line (empty when it wrote none)."""
    from conformance.reporting.certificate import coverage, coverage_text

    bundle = report_dir / CERTIFICATE_NAME
    try:
        written = bundle.stat().st_mtime >= since
    except OSError:
        written = False
    if not written:
        return ["certificate=", "certificate-coverage="]
    return [
        f"certificate={bundle}",
        f"certificate-coverage={_one_line(coverage_text(verdict, coverage(summary)))}",
    ]
