"""What a run says of two answers that are not what they first look like: 1 MiB of response
headers is an answer too large to read (never "the target stopped answering"), and a
redirect at the sink's registration is a redirect (never a hint about tunnels and
--sink-public-url)."""

from __future__ import annotations

import pytest

from conformance.contract.failures import ConformanceFailure

from .server import HostileTarget
from .test_client_hostile import make_client
from .test_runs_hostile import EXIT_NOT_RUN, raw_exceptions, timed_run


def test_huge_headers_are_an_answer_too_large_to_read():
    with HostileTarget("huge-headers") as target:
        client = make_client(target.base_url)
        health = client.state.health
        for _ in range(health.limit + 1):
            with pytest.raises(ConformanceFailure) as info:
                client.get("/config")
        assert health.unreachable is None  # it answered, every time
    message = str(info.value)
    assert "with headers the kit can read" in message
    assert "status line and headers go past 16384 bytes" in message
    assert "stopped answering" not in message and "connection broke" not in message
    assert "too large to read" in (health.down or "")


def test_a_run_against_huge_headers_stops_as_too_large_not_as_unanswered(tmp_path):
    with HostileTarget("huge-headers", healthy_first=1) as target:
        result, _ = timed_run(tmp_path, target, "--parts=auth,errors,versioning")
    assert result.code == EXIT_NOT_RUN, result.output[-3000:]
    reason = result.summary["incomplete_reason"]
    assert "too large to read" in reason and "headers past 16384 bytes" in reason, reason
    assert "stopped answering" not in reason
    assert result.summary["totals"]["failed"] + result.summary["totals"]["errors"] <= 2
    assert raw_exceptions(result) == []


def test_a_redirect_at_the_sinks_registration_is_named_as_one(tmp_path):
    # the preflight's GET /config is answered; the sink's registration meets a 307
    with HostileTarget("redirect-307", healthy_first=1) as target:
        result, _ = timed_run(tmp_path, target, "--parts=webhooks")
    assert result.code == EXIT_NOT_RUN, result.output[-3000:]
    reason = result.summary["incomplete_reason"]
    assert "GET /config answered 307, a redirect to" in reason, reason
    assert "give --target-url the final address" in reason, reason
    assert "--sink-public-url" not in reason and "tunnel" not in reason, reason
