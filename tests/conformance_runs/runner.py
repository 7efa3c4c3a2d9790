"""Run ``conformance run`` in a subprocess and read what it wrote."""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any


@dataclass
class RunResult:
    code: int
    output: str
    summary: dict[str, Any]
    report_dir: Path

    def failed_tests(self) -> dict[str, str]:
        """nodeid -> part of every failed or errored test."""
        return {f["nodeid"]: f["part"] for f in self.summary.get("failures", [])}


def conformance_run(report_dir: Path, *args: str, timeout: float = 600) -> RunResult:
    command = [
        sys.executable, "-m", "conformance.cli", "run", f"--report-dir={report_dir}", *args,
    ]  # fmt: skip
    done = subprocess.run(
        command, capture_output=True, text=True, timeout=timeout, stdin=subprocess.DEVNULL,
        check=False,
    )  # fmt: skip
    summary_file = report_dir / "summary.json"
    summary = json.loads(summary_file.read_text()) if summary_file.exists() else {}
    return RunResult(done.returncode, done.stdout + done.stderr, summary, report_dir)
