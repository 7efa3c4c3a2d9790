"""The embedded default: the reference sandbox in a subprocess on a free loopback port.

The suite never imports the reference; it starts ``python -m reference serve`` and reads
the one JSON line the output contract promises.
"""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
import threading
from dataclasses import dataclass
from typing import Any

__all__ = ["EmbeddedSandbox", "EmbeddedStartError", "start_embedded"]

START_TIMEOUT_S = 30.0


class EmbeddedStartError(RuntimeError):
    """The reference sandbox did not start."""


@dataclass
class EmbeddedSandbox:
    """A running reference sandbox and what it printed."""

    process: subprocess.Popen[str]
    info: dict[str, Any]

    def stop(self) -> None:
        """Stop the server and wait for it (kill it if it does not stop in time)."""
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=10)
        for stream in (self.process.stdout, self.process.stderr):
            if stream is not None:
                stream.close()


def start_embedded(extra_args: str = "", *, python: str = sys.executable) -> EmbeddedSandbox:
    """Start the reference sandbox and return once it prints its credentials."""
    command = [python, "-m", "reference", "serve", "--port", "0", *shlex.split(extra_args)]
    process = subprocess.Popen(
        command,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    first_line: list[str] = []
    reader = threading.Thread(
        target=lambda: first_line.append(process.stdout.readline() if process.stdout else ""),
        daemon=True,
    )
    reader.start()
    reader.join(START_TIMEOUT_S)
    line = first_line[0] if first_line else ""
    try:
        info = json.loads(line)
        info["base_url"]
    except (ValueError, KeyError, TypeError):
        if process.poll() is None:
            process.kill()
        stderr = process.stderr.read() if process.stderr and process.poll() is not None else ""
        raise EmbeddedStartError(
            f"the embedded reference sandbox did not start ({' '.join(command)}): "
            f"first line {line[:200]!r}; stderr: {stderr.strip()[-800:]}"
        ) from None
    # Drain stderr so a chatty server never blocks on a full pipe.
    threading.Thread(target=_drain, args=(process,), daemon=True).start()
    return EmbeddedSandbox(process, info)


def _drain(process: subprocess.Popen[str]) -> None:
    if process.stderr is None:
        return
    try:
        for _ in process.stderr:
            pass
    except (ValueError, OSError):  # the pipe was closed by stop()
        return
