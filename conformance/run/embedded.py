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

__all__ = ["EmbeddedSandbox", "EmbeddedStartError", "start_embedded", "wallet_settings"]

START_TIMEOUT_S = 30.0


class EmbeddedStartError(RuntimeError):
    """The reference sandbox did not start."""


@dataclass
class EmbeddedSandbox:
    """A running reference sandbox and what it printed."""

    process: subprocess.Popen[str]
    info: dict[str, Any]

    def begin_stop(self) -> None:
        """Ask the server to stop, without waiting (its shutdown overlaps other work)."""
        if self.process.poll() is None:
            self.process.terminate()

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


# start-up line keys -> profile fields (§5 embedded wallet: what the interface does not show)
_WALLET_KEYS = ("wallet_enclave_public_key", "wallet_rp_id", "wallet_origin")


def wallet_settings(info: dict[str, Any], profile: Any) -> dict[str, Any]:
    """The embedded-wallet profile values from the sandbox's start-up line extras; values
    the profile already sets win."""
    values: dict[str, Any] = {}
    for key in _WALLET_KEYS:
        given = getattr(profile, key, None)
        found = info.get(key)
        values[key] = given or (found if isinstance(found, str) and found else None)
    issuers = info.get("wallet_oidc_issuers")
    if isinstance(issuers, str):
        issuers = issuers.split(",")
    found_issuers = tuple(str(i) for i in issuers) if isinstance(issuers, list | tuple) else ()
    values["wallet_oidc_issuers"] = tuple(getattr(profile, "wallet_oidc_issuers", ())) or (
        found_issuers
    )
    return values
