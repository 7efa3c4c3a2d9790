"""``--rate-limit N``: at most N requests a second to the target, and ``Retry-After`` honoured.

A token bucket per process (under xdist each of the W workers gets N/W, so the run as a
whole keeps to N) spaces the requests. When rate limiting is on and the target answers 429
or 503 with ``Retry-After`` (seconds or an HTTP date), the client waits that long and sends
the request again, at most ``MAX_RETRIES`` times, and only while the wait and the new
attempt fit in the request's own deadline (``--request-timeout``, ``deadline.py``): a wait
that does not fit is not made, and the 429/503 is the answer the test sees. So no wait is
unbounded. The waits are counted per test and the console's summary says how many and how
long.
"""

from __future__ import annotations

import os
import sys
import threading
import time
from collections.abc import Callable, Generator
from dataclasses import dataclass
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from typing import Any

import httpx
import pytest

from conformance.exchange.deadline import time_left

__all__ = [
    "MAX_RETRIES",
    "RetryAfterTransport",
    "Throttle",
    "ThrottleTransport",
    "TokenBucket",
    "configure",
    "install",
    "resend_throttled",
    "retry_after_seconds",
    "send_throttled",
]

MAX_RETRIES = 3
MIN_ATTEMPT_S = 1.0  # what a new attempt needs of the deadline after the wait
THROTTLED_PROPERTY = "conformance_throttled"
PLUGIN_NAME = "conformance-rate-limit"
_THROTTLING = frozenset({429, 503})


class TokenBucket:
    """``rate`` tokens a second, ``burst`` at most; thread-safe."""

    def __init__(self, rate: float, burst: float = 1.0) -> None:
        self.rate = rate
        self.burst = max(1.0, burst)
        self.tokens = self.burst
        self.stamp = time.monotonic()
        self.lock = threading.Lock()

    def reserve(self) -> float:
        """Take a token; the seconds to wait before using it."""
        with self.lock:
            now = time.monotonic()
            self.tokens = min(self.burst, self.tokens + (now - self.stamp) * self.rate)
            self.stamp = now
            self.tokens -= 1.0
            return 0.0 if self.tokens >= 0 else -self.tokens / self.rate


@dataclass
class Throttle:
    bucket: TokenBucket | None = None
    waits: int = 0
    waited_s: float = 0.0
    retries: int = 0

    @property
    def enabled(self) -> bool:
        return self.bucket is not None

    def wait_turn(self) -> None:
        if self.bucket is None:
            return
        pause = self.bucket.reserve()
        if pause > 0:
            self._sleep(pause)

    def _sleep(self, seconds: float) -> None:
        self.waits += 1
        self.waited_s += seconds
        time.sleep(seconds)


def configure(throttle: Throttle, rate: float | None, workers: int | None = None) -> None:
    """Turn ``throttle``'s rate limiting on (``rate`` requests a second for the whole run)
    or off."""
    if not rate:
        throttle.bucket = None
        return
    share = rate / max(1, workers or int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1")))
    throttle.bucket = TokenBucket(share, burst=max(1.0, share))


def retry_after_seconds(value: str | None, now: datetime | None = None) -> float | None:
    """``Retry-After`` as seconds from now: delta-seconds or an HTTP date; None if absent."""
    if value is None:
        return None
    text = value.strip()
    if text.isdigit():
        return float(text)
    try:
        when = parsedate_to_datetime(text)
    except (TypeError, ValueError, IndexError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return max(0.0, (when - (now or datetime.now(UTC))).total_seconds())


def send_throttled(
    http: httpx.Client, request: httpx.Request, throttle: Throttle
) -> httpx.Response:
    """Send, and on 429/503 with ``Retry-After`` wait and resend, within the deadline."""
    return resend_throttled(lambda: http.send(request, stream=True), throttle)


def resend_throttled(send: Callable[[], httpx.Response], throttle: Throttle) -> httpx.Response:
    """``send()``'s answer; with rate limiting on, a 429/503 with ``Retry-After`` is waited
    out and sent again, at most ``MAX_RETRIES`` times, while that fits in the deadline."""
    response = send()
    if not throttle.enabled:
        return response
    for _ in range(MAX_RETRIES):
        if response.status_code not in _THROTTLING:
            return response
        pause = retry_after_seconds(response.headers.get("retry-after"))
        left = time_left()
        if pause is None or (left is not None and pause + MIN_ATTEMPT_S > left):
            return response
        response.close()
        print(
            f"conformance: the target answered {response.status_code} with Retry-After "
            f"{pause:g} s; waiting, then sending the request again",
            file=sys.__stderr__,
        )
        throttle.retries += 1
        throttle._sleep(pause)
        throttle.wait_turn()
        response = send()
    return response


class ThrottleTransport(httpx.BaseTransport):
    """The client's throttle layer: the token bucket's turn before anything below (the
    deadline starts after it)."""

    def __init__(self, inner: httpx.BaseTransport, throttle: Throttle) -> None:
        self._inner = inner
        self._throttle = throttle

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        self._throttle.wait_turn()
        return self._inner.handle_request(request)

    def close(self) -> None:
        self._inner.close()


class RetryAfterTransport(httpx.BaseTransport):
    """The client's ``Retry-After`` layer, under the deadline: see :func:`resend_throttled`."""

    def __init__(self, inner: httpx.BaseTransport, throttle: Throttle) -> None:
        self._inner = inner
        self._throttle = throttle

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        return resend_throttled(lambda: self._inner.handle_request(request), self._throttle)

    def close(self) -> None:
        self._inner.close()


# -- the plugin side: per-test counts, a console line ----------------------------------------


class ThrottleReport:
    """Counts each test's throttle waits (any process) and sums them on the controller."""

    def __init__(self, throttle: Throttle) -> None:
        self.throttle = throttle
        self.waits = 0
        self.seconds = 0.0
        self.retries = 0
        self._last = (0, 0.0, 0)  # this process's counts at the previous test's end

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_makereport(
        self, item: pytest.Item, call: pytest.CallInfo[None]
    ) -> Generator[None, Any, None]:
        outcome = yield
        if call.when != "teardown":
            return
        now = (self.throttle.waits, self.throttle.waited_s, self.throttle.retries)
        waits, seconds, retries = (now[0] - self._last[0], now[1] - self._last[1],
                                   now[2] - self._last[2])  # fmt: skip
        self._last = now
        if waits or retries:
            report: pytest.TestReport = outcome.get_result()
            report.user_properties.append((THROTTLED_PROPERTY, f"{waits},{seconds:.3f},{retries}"))

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        for key, value in report.user_properties:
            if key == THROTTLED_PROPERTY and report.when == "teardown":
                waits, seconds, retries = str(value).split(",")
                self.waits += int(waits)
                self.seconds += float(seconds)
                self.retries += int(retries)

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        if self.throttle.enabled or self.waits or self.retries:
            terminalreporter.write_line(
                f"conformance: rate limit: waited {self.waits} times, {self.seconds:.1f} s in "
                f"all; {self.retries} requests sent again after 429/503 with Retry-After"
            )


def install(config: pytest.Config, throttle: Throttle, rate: float | None) -> None:
    """Configure this process's bucket and count its waits (controller and workers)."""
    configure(throttle, rate)
    if config.pluginmanager.get_plugin(PLUGIN_NAME) is None:
        config.pluginmanager.register(ThrottleReport(throttle), PLUGIN_NAME)
