"""Whole runs whose webhooks cannot arrive: each could not run (exit 3) in seconds, saying why
and what to check, instead of failing every webhook wait after its whole timeout."""

from __future__ import annotations

from .server import HostileTarget
from .test_runs_hostile import EXIT_NOT_RUN, leaks, raw_exceptions, timed_run

SINK_PARTS = "--parts=webhooks"
TEST_EVENT_TESTS = (
    "test_test_event_reaches_the_configured_endpoint",
    "test_test_event_has_the_documented_shape",
    "test_every_delivery_is_signed",
)


def test_deliveries_that_stop_arriving_end_the_run_naming_the_waits(tmp_path):
    # the preflight's TEST event arrives (badly signed: the target has no key), then nothing
    with HostileTarget("plain", test_events=1) as target:
        result, elapsed = timed_run(tmp_path, target, SINK_PARTS)
    assert result.code == EXIT_NOT_RUN, result.output[-3000:]
    summary = result.summary
    reason = summary["incomplete_reason"]
    assert summary["verdict"] == "not_run", summary
    assert reason.startswith("webhooks do not arrive: 3 webhook waits in a row"), reason
    assert all(name in reason for name in TEST_EVENT_TESTS), reason
    assert "Asked for a TEST event then: no TEST delivery arrived" in reason
    assert "--sink-public-url" in reason and "--sink-host" in reason
    # the preflight saw the badly signed TEST event: it says so, and the run went on
    assert any("does not verify with --webhook-public-key" in n for n in summary["notes"])
    markdown = (tmp_path / "summary.md").read_text()
    assert "INCOMPLETE" in markdown and "webhooks do not arrive" in markdown
    assert "could not restore webhookEndpoint" not in result.output  # put back as usual
    assert raw_exceptions(result) == [] and leaks(tmp_path) == []
    assert elapsed < 60, f"{elapsed:.1f} s"


def test_a_sink_the_target_refuses_to_register_could_not_run(tmp_path):
    # GET /config answers (preflight, then the registration's read); PATCH /config fails
    with HostileTarget("error-500", healthy_first=2) as target:
        result, elapsed = timed_run(tmp_path, target, SINK_PARTS)
    assert result.code == EXIT_NOT_RUN, result.output[-3000:]
    reason = result.summary["incomplete_reason"]
    assert "could not be registered" in reason and "PATCH /config answered 500" in reason
    assert "--sink-https" in reason
    assert elapsed < 30, f"{elapsed:.1f} s"


def test_in_production_the_run_says_the_sink_check_was_skipped(tmp_path):
    with HostileTarget("plain") as target:
        result, _ = timed_run(
            tmp_path,
            target,
            SINK_PARTS,
            "--target-environment=production",
            "--allow-production-writes=true",
        )
        triggered = [r.path for r in target.received if "/sandbox/" in r.path]
    assert triggered == []  # no sandbox endpoint is called in production
    [note] = [n for n in result.summary["notes"] if "sink check was skipped" in n]
    assert "production" in note
    assert note in (tmp_path / "summary.md").read_text()
    assert "sink check was skipped" in result.output  # and on the console


def test_a_test_event_the_target_refuses_to_send_is_the_webhooks_part_s_to_judge(tmp_path):
    # GET /config, the registration's GET and PATCH answer; POST /sandbox/webhooks/test fails
    with HostileTarget("error-500", healthy_first=3) as target:
        result, _ = timed_run(tmp_path, target, SINK_PARTS)
    assert result.summary["verdict"] == "failed", result.output[-3000:]
    [note] = [n for n in result.summary["notes"] if "sink check was skipped" in n]
    assert "POST /sandbox/webhooks/test answered 500" in note
