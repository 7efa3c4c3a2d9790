"""--rate-limit: a token bucket, and Retry-After waited out within the request deadline."""

from __future__ import annotations

import time
from datetime import UTC, datetime

import httpx
import pytest

from conformance.exchange import rate_limit
from conformance.exchange.deadline import deadline
from conformance.exchange.rate_limit import (
    Throttle,
    TokenBucket,
    retry_after_seconds,
    send_throttled,
)

THROTTLE = Throttle()  # these tests' throttle (a run's is on its session's state)


@pytest.fixture(autouse=True)
def _reset():
    yield
    rate_limit.configure(THROTTLE, None)
    THROTTLE.waits, THROTTLE.waited_s, THROTTLE.retries = 0, 0.0, 0


def _client(answers: list[httpx.Response], seen: list[float]) -> httpx.Client:
    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(time.monotonic())
        return answers.pop(0) if len(answers) > 1 else answers[0]

    return httpx.Client(transport=httpx.MockTransport(handler))


def test_retry_after_in_seconds_or_as_a_date() -> None:
    now = datetime(2026, 1, 1, 12, 0, 0, tzinfo=UTC)
    assert retry_after_seconds("3", now) == 3.0
    assert retry_after_seconds("Thu, 01 Jan 2026 12:00:05 GMT", now) == 5.0
    assert retry_after_seconds(None) is None and retry_after_seconds("soon") is None


def test_the_bucket_spaces_requests() -> None:
    bucket = TokenBucket(10.0)
    assert bucket.reserve() == 0.0
    assert 0.05 < bucket.reserve() <= 0.1


def test_a_429_with_retry_after_is_waited_out_and_sent_again() -> None:
    rate_limit.configure(THROTTLE, 100.0, workers=1)
    seen: list[float] = []
    client = _client([httpx.Response(429, headers={"Retry-After": "1"}), httpx.Response(200)], seen)
    with deadline(5.0):
        response = send_throttled(client, client.build_request("GET", "http://t/x"), THROTTLE)
    assert response.status_code == 200 and len(seen) == 2
    assert seen[1] - seen[0] >= 0.95 and THROTTLE.retries == 1


def test_a_wait_beyond_the_deadline_is_not_made() -> None:
    rate_limit.configure(THROTTLE, 100.0, workers=1)
    seen: list[float] = []
    client = _client([httpx.Response(429, headers={"Retry-After": "86400"})], seen)
    started = time.monotonic()
    with deadline(2.0):
        response = send_throttled(client, client.build_request("POST", "http://t/quotes"), THROTTLE)
    assert response.status_code == 429 and len(seen) == 1
    assert time.monotonic() - started < 0.5


def test_without_rate_limit_a_429_is_the_answer() -> None:
    seen: list[float] = []
    client = _client([httpx.Response(503, headers={"Retry-After": "0"}), httpx.Response(200)], seen)
    with deadline(2.0):
        assert (
            send_throttled(client, client.build_request("GET", "http://t/x"), THROTTLE).status_code
            == 503
        )


def test_retries_are_bounded() -> None:
    rate_limit.configure(THROTTLE, 100.0, workers=1)
    seen: list[float] = []
    client = _client([httpx.Response(503, headers={"Retry-After": "0"})], seen)
    with deadline(5.0):
        assert (
            send_throttled(client, client.build_request("GET", "http://t/x"), THROTTLE).status_code
            == 503
        )
    assert len(seen) == rate_limit.MAX_RETRIES + 1


def test_workers_share_the_rate() -> None:
    rate_limit.configure(THROTTLE, 10.0, workers=2)
    assert THROTTLE.bucket is not None and THROTTLE.bucket.rate == 5.0
