"""Run ``conformance run`` in a subprocess and read what it wrote."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
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


# Each run is a fresh interpreter importing pytest, Hypothesis and the whole suite; with
# bytecode caching off (PYTHONDONTWRITEBYTECODE) that compiling is over a third of a short
# fault run. The runs share one bytecode cache outside the tree instead.
_PYCACHE = Path(tempfile.gettempdir()) / f"gpsi-conformance-pycache-{os.getuid()}"


def _environment() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPYCACHEPREFIX"] = str(_PYCACHE)
    return env


def conformance_run(
    report_dir: Path, *args: str, timeout: float = 600, env: dict[str, str] | None = None
) -> RunResult:
    command = [
        sys.executable, "-m", "conformance.run.cli", "run", f"--report-dir={report_dir}", *args,
    ]  # fmt: skip
    done = subprocess.run(
        command, capture_output=True, text=True, timeout=timeout, stdin=subprocess.DEVNULL,
        check=False, env={**_environment(), **(env or {})},
    )  # fmt: skip
    summary_file = report_dir / "summary.json"
    summary = json.loads(summary_file.read_text()) if summary_file.exists() else {}
    return RunResult(done.returncode, done.stdout + done.stderr, summary, report_dir)
