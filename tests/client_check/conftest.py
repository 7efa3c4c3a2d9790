"""``conformance serve --check-clients DIR`` as a platform team runs it: a subprocess on a
free port, driven by a scripted client over HTTP, stopped with SIGTERM, its reports read."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import xml.etree.ElementTree as ET
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest

STOP_TIMEOUT_S = 20


@dataclass
class Checked:
    """What a stopped check left: its exit code, stderr and reports."""

    code: int
    stderr: str
    summary: dict[str, Any]
    junit: ET.Element
    folder: Path

    def findings(self) -> list[tuple[str, str, str]]:
        """Each finding as (rule, method, path), sorted."""
        return sorted((f["rule"], f["method"], f["path"]) for f in self.summary["findings"])


@dataclass
class ClientCheck:
    """A running check: its start-up line, a client with the platform's credentials."""

    process: subprocess.Popen[str]
    banner: dict[str, Any]
    folder: Path
    stderr_file: Path
    clients: list[httpx.Client] = field(default_factory=list)

    def client(self, **kwargs: Any) -> httpx.Client:
        """An HTTP client of the platform (Basic credentials unless ``auth`` is given)."""
        kwargs.setdefault("auth", (self.banner["client_id"], self.banner["client_secret"]))
        made = httpx.Client(base_url=self.banner["base_url"], timeout=10, **kwargs)
        self.clients.append(made)
        return made

    def stop(self) -> Checked:
        """SIGTERM, as a CI job or Ctrl-C would stop it; then its reports."""
        for made in self.clients:
            made.close()
        self.process.send_signal(signal.SIGTERM)
        code = self.process.wait(timeout=STOP_TIMEOUT_S)
        summary = json.loads((self.folder / "summary.json").read_text(encoding="utf-8"))
        junit = ET.parse(self.folder / "junit.xml").getroot()
        return Checked(code, self.stderr_file.read_text(), summary, junit, self.folder)


@pytest.fixture
def start_check(tmp_path: Path) -> Iterator[Callable[..., ClientCheck]]:
    """Start ``conformance serve --check-clients DIR``; stopped at the end if still running."""
    started: list[ClientCheck] = []

    def start(*flags: str) -> ClientCheck:
        folder = tmp_path / f"check-{len(started)}"
        stderr_file = tmp_path / f"stderr-{len(started)}.txt"
        with stderr_file.open("w") as stderr:
            process = subprocess.Popen(
                [sys.executable, "-m", "conformance.run.cli", "serve", "--port", "0",
                 "--check-clients", str(folder), *flags],
                stdout=subprocess.PIPE, stderr=stderr, text=True,
            )  # fmt: skip
        assert process.stdout is not None
        line = process.stdout.readline()
        assert line, f"no start-up line: {stderr_file.read_text()}"
        check = ClientCheck(process, json.loads(line), folder, stderr_file)
        started.append(check)
        return check

    yield start
    for check in started:
        if check.process.poll() is None:
            check.process.kill()
            check.process.wait()
