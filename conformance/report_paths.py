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


def report_locations(report_dir: Path) -> list[tuple[str, Path]]:
    """Each report the run left in ``report_dir``, with what it is."""
    found = [(label, report_dir / name) for label, name in _FILES]
    return [(label, path) for label, path in found if path.exists()]


def render_locations(report_dir: Path) -> str:
    located = report_locations(report_dir)
    if not located:
        return f"conformance: no report was written to {report_dir}"
    width = max(len(label) for label, _ in located)
    lines = ["conformance: reports"]
    lines += [f"  {label:<{width}}  {path}" for label, path in located]
    if (report_dir / "allure-results").is_dir():
        html = report_dir / "allure-report" / "index.html"
        lines.append(
            f"  {'HTML report':<{width}}  `conformance report --report-dir {report_dir} --open` "
            f"builds {html} and opens it"
        )
    return "\n".join(lines)
