"""Failures that point at their cause (issue "failures that point at their cause"), against
the reference with faults: one slip in an answer many tests read is charged once, to its own
requirement; the tests that met it on the way end blocked, and the console stays short."""

from __future__ import annotations

import json

import pytest

from conformance.contract.operation_owners import operation_owners
from tests.reference.reference_helpers import start_sandbox

from . import wait_deadlines
from .runner import aimed_at, conformance_run

TIMESTAMPS = "COMMON-TIMESTAMP-UTC"
REFUND_LIFECYCLE = "REFUND-OUTGOING-LIFECYCLE"


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


# tests that meet POST /customers and POST /quotes; the first holds requirements naming POST
# /customers, the others do not (they read it on the way, or check a rule of its body)
NOW_AND_THEN = (
    "test_a_business_needs_the_four_required_business_info_fields",
    "test_the_business_country_is_an_alpha_2_code",
    "test_a_tax_id_that_fits_no_reading_of_the_us_format_is_refused",
    "test_an_individual_comes_back_with_the_fields_sent",
    "test_a_business_comes_back_with_its_business_info",
    "test_a_quote_request_lacking_a_required_field_is_refused",
)


def test_a_target_answering_500_now_and_then_is_charged_once_per_operation(tmp_path):
    """``sometimes-500`` answers 500 to every third POST /customers and POST /quotes: each
    operation that answered a 5xx is one cause, charged to its own requirement; a test fails
    only under a requirement that names that operation, the others are blocked."""
    sandbox = start_sandbox("--fault", "sometimes-500", warm=True)
    flags, env = aimed_at(sandbox.banner)
    try:
        result = conformance_run(
            tmp_path, "--parts=resources,endpoints", *flags, "--webhook-timeout=3",
            "--", "-k", " or ".join(NOW_AND_THEN), env=env,
        )  # fmt: skip
    finally:
        sandbox.stop()
    summary = result.summary
    answered_5xx = {
        op["operation"]
        for op in summary["interface_coverage"]["operations"]
        if any(int(status) >= 500 for status in op.get("statuses", {}))
    }
    assert answered_5xx, "the fault answered no 500"
    causes = {cause["observed"].rsplit(" answered", 1)[0]: cause for cause in summary["causes"]}
    assert set(causes) == answered_5xx, summary["causes"]
    for operation in answered_5xx:
        owners = operation_owners(*operation.split(" ", 1))
        assert owners is not None and causes[operation]["requirement"] in owners[1], operation
        for nodeid in causes[operation]["failed"]:
            held = next(t["requirements"] for t in summary["tests"] if t["nodeid"] == nodeid)
            assert set(held) & set(owners[1]), (nodeid, held)
    naming = {rid for op in answered_5xx for rid in operation_owners(*op.split(" ", 1))[1]}
    failed = _failed_requirements(summary)
    assert failed and set(failed) <= naming, failed
    assert summary["totals"]["blocked"] > 0 and summary["verdict"] == "failed", summary["totals"]
    assert result.output.count("\n") < 200, result.output[-3000:]


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
