"""Failures that point at their cause (issue "failures that point at their cause"), against
the reference with faults: one slip in an answer many tests read is charged once, to its own
requirement; the tests that met it on the way end blocked, and the console stays short."""

from __future__ import annotations

import pytest

from tests.reference.reference_helpers import start_sandbox

from .runner import aimed_at, conformance_run

TIMESTAMPS = "COMMON-TIMESTAMP-UTC"


def _run(tmp_path, *faults: str, parts: str = "auth,resources", pytest_args=()):
    sandbox = start_sandbox(*(arg for fault in faults for arg in ("--fault", fault)), warm=True)
    flags, env = aimed_at(sandbox.banner)
    try:
        return conformance_run(
            tmp_path, f"--parts={parts}", *flags, *(("--", *pytest_args) if pytest_args else ()),
            env=env,
        )  # fmt: skip
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


def test_a_refusal_is_judged_before_the_body_of_the_answer_that_should_not_be(tmp_path):
    # PATCH /config takes an http:// webhook (it must refuse it, 400) and answers the
    # config, whose timestamps are not UTC: the refusal test reports its own clause, the
    # status, not the body's defect that other tests are blocked by
    summary = _run(
        tmp_path, "config-local-timestamps", "config-accept-http-webhook", parts="endpoints",
        pytest_args=("-k", "platform_configuration"),
    ).summary  # fmt: skip
    https = [f for f in summary["failures"] if "must_be_https" in f["nodeid"]]
    assert https and "expected 400; got 200" in https[0]["message"].splitlines()[0], https
    assert sorted(c["requirement"] for c in summary["causes"]) == [
        TIMESTAMPS,
        "CONFIG-WEBHOOK-HTTPS",
    ], summary["causes"]
    assert summary["totals"]["blocked"] > 0, summary["totals"]
