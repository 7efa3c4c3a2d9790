"""``-n auto`` picks a worker count for the target's measured latency, not only the CPUs."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from conformance.ground.profile import TargetProfile
from conformance.run.embedded import usable_cpus
from conformance.run.worker_count import MAX_AUTO_WORKERS, auto_workers


def _serving(delay_s: float) -> Iterator[str]:
    class Late(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            time.sleep(delay_s)  # the latency of a target a network away
            body = b"{}"
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Late)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/2025-10-13"
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture
def late_target() -> Iterator[str]:
    """A loopback target answering every request 40 ms late."""
    yield from _serving(0.04)


def test_against_the_embedded_sandbox_one_worker_per_cpu():
    chosen = auto_workers(TargetProfile(base_url=None, embedded=True))
    assert chosen.count == usable_cpus()
    assert "embedded" in chosen.reason


def test_a_distant_target_gets_more_workers_than_cpus_and_the_console_says_why(late_target):
    chosen = auto_workers(TargetProfile(base_url=late_target))
    assert usable_cpus() < chosen.count <= MAX_AUTO_WORKERS
    assert "ms" in chosen.reason and str(chosen.count) in chosen.reason


def test_a_rate_limit_keeps_the_workers_to_what_it_lets_wait_at_once(late_target):
    chosen = auto_workers(TargetProfile(base_url=late_target, rate_limit=20))
    assert chosen.count == usable_cpus()  # 20/s x 40 ms: one request in flight
    assert "--rate-limit" in chosen.reason


def test_a_target_that_does_not_answer_gets_one_worker_per_cpu():
    chosen = auto_workers(TargetProfile(base_url="http://127.0.0.1:1/2025-10-13"))
    assert chosen.count == usable_cpus()
    assert "did not answer" in chosen.reason
