"""Webhook delivery as a service keeps it: retries over hours (compressed here with
``--webhook-retry-scale``), resumed after a restart with ``--db``, one deadline per attempt,
and a slow endpoint that delays no other platform's events."""

from __future__ import annotations

import select
import socket
import sqlite3
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from .reference_helpers import RunningSandbox, WebhookReceiver, wait_until, with_webhook_id


def outbox_row(db: Path, webhook_id: str) -> dict[str, Any] | None:
    """The outbox row of an event, read from the sandbox's database file."""
    with sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=5.0) as conn:
        conn.row_factory = sqlite3.Row
        row = conn.execute(
            "SELECT state, attempts, next_attempt_at FROM webhook_outbox WHERE event_id = ?",
            (webhook_id,),
        ).fetchone()
    return None if row is None else dict(row)


def attempts_at_least(db: Path, webhook_id: str, count: int) -> Callable[[], Any]:
    def check() -> dict[str, Any] | None:
        row = outbox_row(db, webhook_id)
        return row if row is not None and row["attempts"] >= count else None

    return check


def closed_port() -> int:
    """A loopback port nothing listens on (an endpoint that is down)."""
    receiver = WebhookReceiver()
    port = int(receiver.url.split(":")[2].split("/")[0])
    receiver.close()
    return port


def test_an_endpoint_down_receives_the_event_once_it_is_back(launch, tmp_path: Path) -> None:
    db = tmp_path / "sandbox.sqlite3"
    # retries after about 1 ms, 60 ms, 0.36 s, 1.44 s, 3.6 s, ...
    sandbox: RunningSandbox = launch("--webhook-retry-scale", "0.0002", db=db)
    port = closed_port()
    with sandbox.client() as client:
        url = f"http://127.0.0.1:{port}/hooks"
        assert client.patch("/config", json={"webhookEndpoint": url}).status_code == 200
        webhook_id = client.post("/sandbox/webhooks/test").json()["webhookId"]
    row = wait_until(attempts_at_least(db, webhook_id, 4), 10.0, "4 refused attempts")
    assert row["state"] == "pending", "the event was given up while the endpoint was down"

    back = WebhookReceiver(port=port)
    try:
        [delivery] = back.wait_for(with_webhook_id(webhook_id))
        assert delivery.answered == 200
        assert delivery.received_at >= row["next_attempt_at"] - 0.05, "before its retry time"
        wait_until(
            lambda: (outbox_row(db, webhook_id) or {}).get("state") == "delivered",
            5.0,
            "the row recorded as delivered",
        )
    finally:
        back.close()


def test_a_restart_resumes_a_pending_delivery_at_its_scheduled_time(launch, tmp_path: Path) -> None:
    db = tmp_path / "sandbox.sqlite3"
    flags = ("--webhook-retry-scale", "0.002")  # retries after 10 ms, 0.6 s, 3.6 s (+-20%)
    first: RunningSandbox = launch(*flags, db=db)
    port = closed_port()
    with first.client() as client:
        url = f"http://127.0.0.1:{port}/hooks"
        assert client.patch("/config", json={"webhookEndpoint": url}).status_code == 200
        webhook_id = client.post("/sandbox/webhooks/test").json()["webhookId"]
    wait_until(attempts_at_least(db, webhook_id, 3), 10.0, "3 refused attempts")
    assert first.stop() == 0
    row = outbox_row(db, webhook_id)
    assert row is not None and row["state"] == "pending"
    scheduled = row["next_attempt_at"]
    assert scheduled > time.time(), "the next attempt should still be ahead"

    back = WebhookReceiver(port=port)
    try:
        launch(*flags, db=db)
        [delivery] = back.wait_for(with_webhook_id(webhook_id))
        # resumed at the stored time: not at once on start-up, not from the beginning
        assert delivery.received_at >= scheduled - 0.05, (delivery.received_at, scheduled)
        assert delivery.received_at < scheduled + 5.0
    finally:
        back.close()


class TricklingEndpoint:
    """Answers 200 with a long body sent a byte at a time; notes when each caller hangs up."""

    BYTE_EVERY_S = 0.1

    def __init__(self) -> None:
        self._listener = socket.create_server(("127.0.0.1", 0))
        self._stop = threading.Event()
        self._lock = threading.Condition()
        self.requested: list[float] = []  # monotonic time each request arrived
        self.cut: list[float] = []  # monotonic time each caller closed the connection
        threading.Thread(target=self._accept, daemon=True).start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._listener.getsockname()[1]}/slow"

    def _accept(self) -> None:
        while not self._stop.is_set():
            try:
                conn, _ = self._listener.accept()
            except OSError:
                return
            threading.Thread(target=self._serve, args=(conn,), daemon=True).start()

    def _serve(self, conn: socket.socket) -> None:
        with conn:
            received = b""
            while b"\r\n\r\n" not in received:
                chunk = conn.recv(65536)
                if not chunk:
                    return
                received += chunk
            self._note(self.requested)
            conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 100000\r\n\r\n")
            while not self._stop.is_set():
                readable, _, _ = select.select([conn], [], [], self.BYTE_EVERY_S)
                if readable and not conn.recv(65536):
                    self._note(self.cut)
                    return
                try:
                    conn.sendall(b"x")
                except OSError:
                    self._note(self.cut)
                    return

    def _note(self, times: list[float]) -> None:
        with self._lock:
            times.append(time.monotonic())
            self._lock.notify_all()

    def wait(self, times: list[float], timeout: float) -> float:
        """The first time in ``times``, waiting for it up to ``timeout`` seconds."""
        with self._lock:
            if not self._lock.wait_for(lambda: bool(times), timeout):
                raise AssertionError(f"trickling endpoint: nothing within {timeout}s")
            return times[0]

    def close(self) -> None:
        self._stop.set()
        self._listener.close()


def test_a_trickling_endpoint_is_cut_and_delays_no_other_platform(
    launch, receiver: WebhookReceiver
) -> None:
    sandbox: RunningSandbox = launch("--webhook-timeout", "1")
    slow = TricklingEndpoint()
    try:
        with sandbox.client() as client, sandbox.client("second") as second:
            assert client.patch("/config", json={"webhookEndpoint": slow.url}).status_code == 200
            # a backlog larger than one batch of due rows, all for the slow endpoint
            for _ in range(110):
                assert client.post("/sandbox/webhooks/test").status_code == 200
            requested = slow.wait(slow.requested, 5.0)
            second.patch("/config", json={"webhookEndpoint": receiver.url})
            other_id = second.post("/sandbox/webhooks/test").json()["webhookId"]
        [delivered] = receiver.wait_for(with_webhook_id(other_id), timeout=5.0)
        with slow._lock:
            first_cut = slow.cut[0] if slow.cut else None
        assert first_cut is None or delivered.at < first_cut, "waited for the slow endpoint"

        cut = slow.wait(slow.cut, 5.0)
        assert 0.8 <= cut - requested < 3.0, f"attempt cut after {cut - requested:.2f}s"
    finally:
        slow.close()
