"""Where a run's reports are: the console's last lines after ``conformance run``."""

from __future__ import annotations

from pathlib import Path

__all__ = ["render_locations", "report_locations"]

_FILES = (
    ("summary", "summary.md"),
    ("summary (JSON)", "summary.json"),
    ("JUnit XML", "junit.xml"),
    ("Allure results", "allure-results"),
)


def report_locations(report_dir: Path, since: float = 0.0) -> list[tuple[str, Path]]:
    """Each report the run left in ``report_dir`` (written at ``since`` or later)."""
    found = [(label, report_dir / name) for label, name in _FILES]
    return [(label, p) for label, p in found if p.exists() and p.stat().st_mtime >= since]


def render_locations(report_dir: Path, since: float = 0.0) -> str:
    """The console's last lines: every report this run wrote (older files are not named)."""
    located = report_locations(report_dir, since)
    if not located:
        return f"conformance: no report was written to {report_dir}"
    width = max(len(label) for label, _ in located)
    lines = ["conformance: reports"]
    lines += [f"  {label:<{width}}  {path}" for label, path in located]
    if any(path.name == "allure-results" for _, path in located):
        html = report_dir / "allure-report" / "index.html"
        lines.append(
            f"  {'HTML report':<{width}}  `conformance report --report-dir {report_dir} --open` "
            f"builds {html} and opens it"
        )
    return "\n".join(lines)
