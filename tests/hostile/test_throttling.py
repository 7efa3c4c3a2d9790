"""A target that throttles every request could not be tested (exit 3, with the --rate-limit
remedy and the Retry-After it asked for); a few 429s among answers are the tests' business."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conformance.exchange.target_health import THROTTLED_AFTER, TargetHealth, is_throttling
from conformance.exchange.unanswered import RunStopping

from .server import HostileTarget
from .test_client_hostile import make_client
from .test_runs_hostile import EXIT_NOT_RUN, leaks, raw_exceptions, timed_run

FAST_PARTS = "--parts=auth,errors,versioning"


def test_answers_that_all_throttle_take_the_target_as_not_testable():
    with HostileTarget("throttle") as target:
        client = make_client(target.base_url)
        for _ in range(THROTTLED_AFTER):
            assert client.get("/config", validate=False).status == 429
        client.close()
    down = client.state.health.down
    assert down is not None and f"{THROTTLED_AFTER} requests in a row" in down
    assert "--rate-limit" in down and "Retry-After 86400 s" in down
    assert client.state.health.unreachable is None  # it answers: requests are still sent


def test_a_few_throttled_answers_among_others_are_not_a_streak():
    with HostileTarget("throttle-some") as target:  # every third request answers 429
        client = make_client(target.base_url)
        statuses = [
            client.get("/config", validate=False).status for _ in range(3 * THROTTLED_AFTER)
        ]
        client.close()
    assert statuses.count(429) >= THROTTLED_AFTER
    assert client.state.health.down is None


def test_throttling_is_429_or_503_with_retry_after_and_only_a_streak_counts():
    assert is_throttling(429, None) and is_throttling(503, "30")
    assert not is_throttling(503, None) and not is_throttling(500, "30")
    health = TargetHealth(throttled_limit=2)
    health.throttled("GET /a", 429, None, rate_limited=True)
    health.answered()  # an answer in between starts the count again
    health.throttled("GET /b", 429, None, rate_limited=True)
    assert health.down is None
    health.throttled("GET /c", 503, 30.0, rate_limited=True)
    assert health.down is not None and "lower --rate-limit" in health.down
    assert "the last, GET /c, answered 503 with Retry-After 30 s" in health.down


def test_a_target_that_throttles_from_the_start_could_not_be_tested(tmp_path):
    with HostileTarget("throttle") as target:
        result, elapsed = timed_run(tmp_path, target)
    assert result.code == EXIT_NOT_RUN, result.output[-3000:]
    reason = result.summary["incomplete_reason"]
    assert reason.startswith("preflight") and "--rate-limit" in reason, reason
    assert "Retry-After 86400 s" in reason
    assert "PASSED" not in (tmp_path / "summary.md").read_text()
    assert leaks(tmp_path) == []
    assert elapsed < 30, f"{elapsed:.1f} s"


def test_a_target_that_starts_throttling_mid_run_stops_it_under_xdist(tmp_path):
    # the preflight's request is answered; every later one is throttled, on both workers
    with HostileTarget("throttle", healthy_first=1) as target:
        result, elapsed = timed_run(tmp_path, target, FAST_PARTS, "-n", "2")
    assert result.code == EXIT_NOT_RUN, result.output[-3000:]
    summary = result.summary
    assert summary["verdict"] == "not_run" and summary["not_run"] > 0
    assert "throttles the run" in summary["incomplete_reason"]
    assert "--rate-limit" in summary["incomplete_reason"]
    # a handful of tests met the streak, not every test of the parts: each worker stops at
    # its own streak at the latest (a failed test made at least one of its requests; under
    # load both workers reach theirs before the other's stop arrives: 20 failed or errored
    # in one CI run, at the old bound of < 20), and most of the parts' tests never ran
    totals = summary["totals"]
    assert totals["failed"] <= 2 * THROTTLED_AFTER, totals
    assert summary["not_run"] > summary["plan"]["tests"]["selected"] // 2, (totals, summary)
    assert raw_exceptions(result) == []
    assert leaks(tmp_path) == []
    assert elapsed < 60, f"{elapsed:.1f} s"


def test_a_request_not_sent_inside_a_hypothesis_test_leaves_it_at_once():
    # Hypothesis shrinks every Exception: a failure no input causes (the run is stopping)
    # would be searched on for many seconds, the other worker waiting for it
    with HostileTarget("throttle") as target:
        client = make_client(target.base_url)
        for _ in range(THROTTLED_AFTER):
            client.get("/config", validate=False)
        examples: list[int] = []

        @given(st.integers())
        @settings(max_examples=50, database=None)
        def generated(number):
            examples.append(number)
            client.get("/config", validate=False)

        with pytest.raises(RunStopping) as stopping:
            generated()
        client.close()
    assert len(examples) == 1
    assert "the target must answer GET /config" in str(stopping.value.failure)
