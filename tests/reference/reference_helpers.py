"""Helpers for the reference sandbox's own tests: a server process, a webhook receiver,
and signature checking. Tests reach them through the fixtures in ``conftest.py``."""

from __future__ import annotations

import base64
import json
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec

from tests.conformance_runs.runner import warm_sandbox_command

PROJECT_ROOT = Path(__file__).resolve().parents[2]
START_TIMEOUT_S = 15.0
# Extra start-up time per sandbox started together: they compete for the same CPUs.
START_TIMEOUT_PER_PEER_S = 1.0
DELIVERY_TIMEOUT_S = 10.0


POLL_S = 0.02  # how often a wait on a condition (an outbox file, a log) looks again


def wait_until(condition: Callable[[], Any], timeout: float, what: str) -> Any:
    """Poll ``condition`` until it gives a true value; fail after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while not (value := condition()):
        if time.monotonic() > deadline:
            raise AssertionError(f"not within {timeout}s: {what}")
        time.sleep(POLL_S)
    return value


class SandboxStartError(RuntimeError):
    """The server did not print its start-up line."""


@dataclass
class RunningSandbox:
    """A ``python -m reference serve`` subprocess and the JSON line it printed."""

    process: subprocess.Popen[str]
    banner: dict[str, Any]
    stderr_path: Path
    _stderr_text: str | None = None

    @property
    def base_url(self) -> str:
        return str(self.banner["base_url"])

    def credentials(self, which: str = "primary") -> tuple[str, str]:
        """``(token id, secret)`` of ``primary``, ``second`` or ``production``."""
        prefix = {"primary": "", "second": "second_", "production": "production_"}[which]
        return self.banner[f"{prefix}client_id"], self.banner[f"{prefix}client_secret"]

    def client(self, which: str | None = "primary") -> httpx.Client:
        """An httpx client on the base URL; ``which=None`` sends no credentials."""
        auth = None if which is None else self.credentials(which)
        return httpx.Client(base_url=self.base_url, auth=auth, timeout=10.0)

    def stop(self, sig: int = signal.SIGTERM, timeout: float = 10.0) -> int:
        """Signal the server and wait for it to exit; return its exit status."""
        if self.process.poll() is None:
            self.process.send_signal(sig)
            try:
                self.process.wait(timeout)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        if self.process.stdout is not None:
            self.process.stdout.close()
        if self._stderr_text is None:
            self._stderr_text = self.stderr()
            self.stderr_path.unlink(missing_ok=True)
        return self.process.returncode

    def stderr(self) -> str:
        """What the server wrote to stderr so far (all of it once stopped)."""
        if self._stderr_text is not None:
            return self._stderr_text
        return self.stderr_path.read_text(errors="replace")


def _read_line(stream: Any, timeout: float) -> str | None:
    """One line from ``stream``, or None if none arrives within ``timeout``."""
    result: list[str] = []
    done = threading.Event()

    def read() -> None:
        result.append(stream.readline())
        done.set()

    threading.Thread(target=read, daemon=True).start()
    return result[0] if done.wait(timeout) else None


@dataclass
class _Spawned:
    command: list[str]
    process: subprocess.Popen[str]
    stderr_path: Path


def _spawn(flags: tuple[str, ...], db: Path | None, *, warm: bool = False) -> _Spawned:
    args = ["serve", "--port", "0", *(["--db", str(db)] if db is not None else []), *flags]
    # a warm sandbox is forked from a process that has imported the reference already
    command = warm_sandbox_command(*args) if warm else [sys.executable, "-m", "reference", *args]
    fd, name = tempfile.mkstemp(prefix="reference-stderr-", suffix=".log")
    with os.fdopen(fd, "w") as stderr:
        process = subprocess.Popen(
            command, cwd=PROJECT_ROOT, stdout=subprocess.PIPE, stderr=stderr, text=True
        )
    return _Spawned(command, process, Path(name))


def _await_banner(spawned: _Spawned, timeout: float = START_TIMEOUT_S) -> RunningSandbox:
    process = spawned.process
    line = _read_line(process.stdout, timeout)
    if not line:
        process.kill()
        process.wait()
        stderr = spawned.stderr_path.read_text(errors="replace")
        spawned.stderr_path.unlink(missing_ok=True)
        raise SandboxStartError(
            f"{' '.join(spawned.command)} printed no start-up line "
            f"(exit {process.returncode}); stderr:\n{stderr}"
        )
    return RunningSandbox(process, json.loads(line), spawned.stderr_path)


def start_sandboxes(*flag_sets: tuple[str, ...]) -> list[RunningSandbox]:
    """Start one sandbox per flag set, all at once, and wait for every start-up line.

    If one fails to start, the others are stopped before the error propagates, so a failed
    fixture leaves no server behind.
    """
    spawned = [_spawn(flags, None) for flags in flag_sets]
    timeout = START_TIMEOUT_S + START_TIMEOUT_PER_PEER_S * len(spawned)
    started: list[RunningSandbox] = []
    try:
        for one in spawned:
            started.append(_await_banner(one, timeout))
    except BaseException:
        for one in spawned[len(started) :]:  # the one that failed and those not awaited
            if one.process.poll() is None:
                one.process.kill()
            one.process.wait()
            if one.process.stdout is not None:
                one.process.stdout.close()
            one.stderr_path.unlink(missing_ok=True)
        stop_all(started)
        raise
    return started


def start_sandbox(*flags: str, db: Path | None = None, warm: bool = False) -> RunningSandbox:
    """Start the sandbox on a free loopback port and wait for its start-up line; ``warm``:
    forked from a process that imported it (``warm_sandbox_command``), for a sandbox that
    is stopped with its state thrown away (stopping it kills it)."""
    return _await_banner(_spawn(flags, db, warm=warm))


def stop_all(sandboxes: list[RunningSandbox]) -> None:
    """Stop several sandboxes, signalling all first so their shutdowns overlap."""
    for running in sandboxes:
        if running.process.poll() is None:
            running.process.send_signal(signal.SIGTERM)
    for running in sandboxes:
        running.stop()


@dataclass(frozen=True)
class Delivery:
    """One POST the receiver got."""

    path: str
    headers: dict[str, str]
    body: bytes
    answered: int
    at: float
    received_at: float = 0.0  # wall clock, to compare with times the sandbox stores

    def json(self) -> Any:
        return json.loads(self.body)


@dataclass
class WebhookReceiver:
    """A loopback HTTP server that records POSTs and answers with scripted statuses."""

    default_status: int = 200
    port: int = 0  # 0 picks a free one; a given port brings a closed receiver back
    scripted: deque[int] = field(default_factory=deque)
    deliveries: list[Delivery] = field(default_factory=list)
    _changed: threading.Condition = field(default_factory=threading.Condition)

    def __post_init__(self) -> None:
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                with receiver._changed:
                    status = (
                        receiver.scripted.popleft()
                        if receiver.scripted
                        else receiver.default_status
                    )
                    receiver.deliveries.append(
                        Delivery(
                            self.path,
                            dict(self.headers),
                            body,
                            status,
                            time.monotonic(),
                            time.time(),
                        )
                    )
                    receiver._changed.notify_all()
                self.send_response(status)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, format: str, *args: Any) -> None:
                pass  # keep test output quiet

        self._server = ThreadingHTTPServer(("127.0.0.1", self.port), Handler)
        self._thread = threading.Thread(
            target=self._server.serve_forever, args=(0.05,), daemon=True
        )
        self._thread.start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}/hooks"

    def answer_next(self, *statuses: int) -> None:
        """Answer the next deliveries with these statuses, then ``default_status``."""
        with self._changed:
            self.scripted.extend(statuses)

    def wait_for(
        self, predicate: Callable[[list[Delivery]], bool], timeout: float = DELIVERY_TIMEOUT_S
    ) -> list[Delivery]:
        """Wait until ``predicate(deliveries)`` holds; return a copy of the deliveries."""
        with self._changed:
            if not self._changed.wait_for(lambda: predicate(self.deliveries), timeout):
                raise AssertionError(
                    f"webhook condition not met within {timeout}s; got {self.deliveries!r}"
                )
            return list(self.deliveries)

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()


def with_webhook_id(webhook_id: str) -> Callable[[list[Delivery]], bool]:
    """Predicate: some delivery carries this ``webhookId``."""
    return lambda deliveries: any(d.json().get("webhookId") == webhook_id for d in deliveries)


def signature_valid(public_key_pem: str, body: bytes, signature_b64: str | None) -> bool:
    """Verify ``X-Service-Signature`` as a platform would (§5 Webhook signature)."""
    if not signature_b64:
        return False
    key = serialization.load_pem_public_key(public_key_pem.encode())
    assert isinstance(key, ec.EllipticCurvePublicKey)
    try:
        key.verify(base64.b64decode(signature_b64), body, ec.ECDSA(hashes.SHA256()))
    except (InvalidSignature, ValueError):
        return False
    return True


WRITABLE = (
    "umaDomain",
    "webhookEndpoint",
    "supportedCurrencies",
    "feeConfigs",
    "cardTokenization2faConfig",
)


def restore_config(client: httpx.Client, saved: dict[str, Any]) -> None:
    """Put the writable fields of a saved config back (a field the config did not show,
    such as an unset webhookEndpoint, is sent as null, which clears it)."""
    response = client.patch("/config", json={key: saved.get(key) for key in WRITABLE})
    assert response.status_code == 200, response.text


def currency(code: str = "USD", **overrides: Any) -> dict[str, Any]:
    """A valid supportedCurrencies entry (without the read-only field)."""
    entry = {
        "currencyCode": code,
        "minAmount": 1,
        "maxAmount": 1000,
        "requiredCounterpartyFields": [{"name": "FULL_NAME", "mandatory": True}],
    }
    return {**entry, **overrides}


def invalid_fields(response: httpx.Response) -> set[str]:
    """The fields a response names as invalid; it must be a 400."""
    assert response.status_code == 400, response.text
    return {error["field"] for error in response.json()["details"]["errors"]}


Check = Callable[[RunningSandbox, WebhookReceiver], None]
"""A fault's check: with the sandbox started with that fault, observe what it breaks."""


class FaultChecks(dict[str, Check]):
    """One area's fault checks by fault name (``test_faults`` gathers every area's);
    ``check = CHECKS.add`` gives the area its ``@check("fault-name")`` decorator."""

    def add(self, name: str) -> Callable[[Check], Check]:
        def register(function: Check) -> Check:
            self[name] = function
            return function

        return register
