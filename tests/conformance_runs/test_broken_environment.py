"""A broken environment is not a broken server: runs against the reference sandbox whose
environment is wrong (a sink it cannot reach, a profile that does not match it) say so, and
one whose server is wrong (events it never sends) still fails the server."""

from __future__ import annotations

import socket
import time

from conformance.webhooks.delivery_health import WAITS_IN_A_ROW
from tests.reference.reference_helpers import start_sandbox

from .runner import conformance_run
from .test_open_variant import _target_args

EXIT_FAILED, EXIT_NOT_RUN = 1, 3
# four webhooks tests that each wait for one event (the target sends none)
ONE_WAIT_EACH = " or ".join(
    (
        "test_every_card_transition_fires_an_event_carrying_the_card_transaction",
        "test_ownership_events_are_signed_envelopes",
        "test_incoming_refund_events_are_signed_transactions_in_order",
        "test_claiming_an_invitation_notifies_the_platform",
    )
)


def closed_port() -> int:
    """A loopback port nothing listens on (bound, then released)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def test_a_sink_url_the_target_cannot_reach_could_not_run_in_seconds(tmp_path):
    url = f"http://127.0.0.1:{closed_port()}/hooks"
    started = time.monotonic()
    result = conformance_run(
        tmp_path, "--parts=webhooks,transitions", f"--sink-public-url={url}", "--webhook-timeout=2"
    )
    elapsed = time.monotonic() - started
    assert result.code == EXIT_NOT_RUN, result.output[-3000:]
    summary = result.summary
    reason = summary["incomplete_reason"]
    assert summary["verdict"] == "not_run" and summary["totals"]["failed"] == 0
    assert reason.startswith("preflight") and url in reason, reason
    for remedy in ("--sink-public-url", "--sink-host", "--sink-https"):
        assert remedy in reason, reason
    assert "INCOMPLETE" in (tmp_path / "summary.md").read_text()
    assert url in result.output  # the console says it too
    assert elapsed < 30, f"{elapsed:.1f} s"


def test_a_server_that_sends_no_event_fails_its_tests_and_is_not_taken_for_a_broken_sink(
    tmp_path,
):
    """Its TEST events arrive, so the waits that time out are its own failures: after a
    streak of them the run asks for a TEST event, which arrives, and goes on."""
    result = conformance_run(
        tmp_path,
        "--parts=webhooks",
        "--embedded-args=--fault events-never-delivered",
        "--webhook-timeout=1",
        "--",
        "-k",
        ONE_WAIT_EACH,
    )
    assert result.code == EXIT_FAILED, result.output[-3000:]
    summary = result.summary
    assert summary["verdict"] == "failed" and summary["not_run"] == 0
    # every test ran and failed: more than one streak's worth of waits
    assert summary["totals"]["failed"] == 4 > WAITS_IN_A_ROW, summary["totals"]


def test_a_platform_mode_the_target_does_not_have_gets_a_hint(tmp_path):
    """``--regulated true`` against an unregulated sandbox: the target does not show its mode,
    so the failures stand, and the summary names the setting to check."""
    sandbox = start_sandbox()  # unregulated, Skip verification paperwork off
    try:
        result = conformance_run(
            tmp_path,
            "--parts=transitions",
            *_target_args(sandbox.banner, sandbox.base_url),
            "--regulated=true",
            "--webhook-timeout=1",
            "--",
            "-k",
            "test_an_individual_starts_where_its_suffix_and_the_platform_mode_say",
        )
    finally:
        sandbox.stop()
    assert result.code == EXIT_FAILED, result.output[-3000:]
    [hint] = [n for n in result.summary["notes"] if "--regulated true" in n]
    assert "--skip-verification-paperwork false" in hint and "does not show" in hint
    assert hint in (tmp_path / "summary.md").read_text()
