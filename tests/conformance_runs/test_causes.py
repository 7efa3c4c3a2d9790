"""Failures that point at their cause (issue "failures that point at their cause"), against
the reference with faults: one slip in an answer many tests read is charged once, to its own
requirement; the tests that met it on the way end blocked, and the console stays short."""

from __future__ import annotations

import json

import pytest

from tests.reference.reference_helpers import start_sandbox

from . import wait_deadlines
from .runner import aimed_at, conformance_run

TIMESTAMPS = "COMMON-TIMESTAMP-UTC"
REFUND_LIFECYCLE = "REFUND-OUTGOING-LIFECYCLE"


def _run(tmp_path, *faults: str):
    sandbox = start_sandbox(*(arg for fault in faults for arg in ("--fault", fault)), warm=True)
    flags, env = aimed_at(sandbox.banner)
    try:
        return conformance_run(tmp_path, "--parts=auth,resources", *flags, env=env)
    finally:
        sandbox.stop()


def _failed_requirements(summary) -> list[str]:
    return [r["id"] for r in summary["requirements"] if r["status"] == "failed"]


@pytest.mark.slow
def test_non_utc_config_timestamps_are_one_cause_charged_once(tmp_path):
    result = _run(tmp_path, "config-local-timestamps")
    summary = result.summary
    failed = _failed_requirements(summary)
    assert 0 < len(failed) <= 3, failed
    assert all(rid == TIMESTAMPS or rid.startswith("CONFIG-") for rid in failed), failed
    assert len(summary["causes"]) == 1, summary["causes"]
    assert summary["causes"][0]["requirement"] == TIMESTAMPS
    assert summary["verdict"] == "failed" and summary["totals"]["blocked"] > 0
    assert result.output.count("\n") < 200, result.output[-3000:]
    assert "site-packages" not in result.output


@pytest.mark.slow
def test_a_second_defect_is_not_hidden_by_the_first(tmp_path):
    summary = _run(tmp_path, "config-local-timestamps", "auth-accept-wrong-secret").summary
    wrong = [f for f in summary["failures"] if "test_wrong_secret_is_refused" in f["nodeid"]]
    assert wrong and "401" in wrong[0]["message"].splitlines()[0], wrong
    assert len(summary["causes"]) == 2, summary["causes"]


@pytest.mark.slow
def test_a_webhook_wait_that_ran_out_is_not_waited_for_again(tmp_path):
    """refund-event-missing: the three tests of the payment events wait for the same refund
    event of one failed payout. Only the first waits out --webhook-timeout; the others end
    at once, charged to its cause: blocked, or failed under the refund's requirement."""
    record = tmp_path / "waits.jsonl"
    sandbox = start_sandbox("--fault", "refund-event-missing", warm=True)
    flags, env = aimed_at(sandbox.banner)
    try:
        result = conformance_run(
            tmp_path / "reports", "--parts=webhooks", *flags, "--webhook-timeout=3", "--",
            "-p", "tests.conformance_runs.wait_deadlines", "-k", "test_payment_events",
            env={**env, wait_deadlines.RECORD: str(record)},
        )  # fmt: skip
    finally:
        sandbox.stop()
    waits = [json.loads(line) for line in record.read_text().splitlines()]
    assert sorted(w["wait"] for w in waits) == ["at once", "at once", "deadline"], waits
    summary = result.summary
    outcomes = sorted(t["outcome"] for t in summary["tests"])
    assert outcomes == ["blocked", "blocked", "failed"], summary["tests"]
    failed = [t for t in summary["tests"] if t["outcome"] == "failed"]
    assert REFUND_LIFECYCLE in failed[0]["requirements"], failed
    assert [c["requirement"] for c in summary["causes"]] == [REFUND_LIFECYCLE], summary["causes"]
    assert _failed_requirements(summary) == [REFUND_LIFECYCLE]
