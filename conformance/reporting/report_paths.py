"""A run's report folder: what a run writes there, the run's claim on it at its first moment,
and where its reports are (the console's last lines after ``conformance run``).

A run owns its folder from its first moment: the artefacts an earlier run left there are
removed before anything else happens, a usage error included, so the folder never holds a
mix of two runs and an old PASSED is never read as this run's. Only the kit's own artefacts
are removed (the folder may be one the user keeps other files in).
"""

from __future__ import annotations

import contextlib
import os
import shutil
from pathlib import Path

__all__ = [
    "RUN_ARTEFACTS",
    "ReportFolderError",
    "claim_report_folder",
    "render_locations",
    "report_locations",
]

# Everything a run, or a command on its folder, writes there: summaries, JUnit, Allure
# results and the HTML built from them, recorded exchanges, the sink's CA, the bundle, a
# client check's journal.
RUN_ARTEFACTS = (
    "summary.json",
    "summary.md",
    "junit.xml",
    "allure-results",
    "allure-report",
    "allurerc.json",
    "evidence",
    "sink-ca.pem",
    "certification.zip",
    "client-check.jsonl",
)

_FILES = (
    ("summary", "summary.md"),
    ("summary (JSON)", "summary.json"),
    ("JUnit XML", "junit.xml"),
    ("Allure results", "allure-results"),
)


class ReportFolderError(Exception):
    """The report folder cannot be written: a usage error naming the folder."""


def claim_report_folder(report_dir: Path, flag: str = "--report-dir") -> None:
    """Make ``report_dir`` this run's: create it, prove it can be written, and remove the
    artefacts an earlier run left there. ``ReportFolderError`` says what is wrong."""
    try:
        report_dir.mkdir(parents=True, exist_ok=True)
        probe = report_dir / f".conformance-write-probe-{os.getpid()}"
        probe.write_bytes(b"")
        probe.unlink()
    except OSError as exc:
        reason = exc.strerror or type(exc).__name__
        if report_dir.exists() and not report_dir.is_dir():
            reason = "a file is in its place"
        raise ReportFolderError(
            f"conformance: {flag}={str(report_dir)!r}: cannot write the reports there "
            f"({reason}). Give a folder you can write, or remove what is in its way."
        ) from exc
    for name in RUN_ARTEFACTS:
        _remove(report_dir / name)


def _remove(path: Path) -> None:
    try:
        if path.is_dir() and not path.is_symlink():
            shutil.rmtree(path)
        else:
            path.unlink(missing_ok=True)
    except OSError as exc:
        raise ReportFolderError(
            f"conformance: cannot remove the earlier run's {path} ({exc.strerror or exc}); "
            "remove it, or give another --report-dir."
        ) from exc


def report_locations(report_dir: Path, since: float = 0.0) -> list[tuple[str, Path]]:
    """Each report the run left in ``report_dir`` (written at ``since`` or later)."""
    found = [(label, report_dir / name) for label, name in _FILES]
    located = []
    for label, path in found:
        with contextlib.suppress(OSError):
            if path.stat().st_mtime >= since:
                located.append((label, path))
    return located


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
