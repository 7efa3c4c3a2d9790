"""Failures that point at their cause (issue "failures that point at their cause"), against
the reference with faults: one slip in an answer many tests read is charged once, to its own
requirement; the tests that met it on the way end blocked, and the console stays short."""

from __future__ import annotations

import pytest

from tests.reference.reference_helpers import start_sandbox

from .runner import aimed_at, conformance_run

TIMESTAMPS = "COMMON-TIMESTAMP-UTC"


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
