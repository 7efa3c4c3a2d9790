"""Only authentic deliveries count: a whole run against a sandbox that posts a forged copy of
every delivery just before it (same envelope id; the rival type and status; an hour earlier;
under the authentic delivery's signature, which does not verify over it).

If the forged copies counted, the first arrival of each id would be the forgery: waits would
be ruled out (a FAILED before the awaited COMPLETED), the state machines broken, the data of
each event wrong. They are set aside instead, and reported once, under the webhooks part.
"""

from __future__ import annotations

import pytest

from .runner import conformance_run


@pytest.mark.slow
@pytest.mark.thorough  # the whole suite once more; CI keeps the webhooks part under xdist below
@pytest.mark.long(17)  # seconds, measured
def test_forged_copies_are_reported_once_under_webhooks_and_disturb_nothing_else(tmp_path):
    result = conformance_run(tmp_path, "--embedded-args=--fault webhook-forged-copy-first")
    assert result.code == 1, result.output[-3000:]
    failures = result.summary["failures"]
    assert [f["nodeid"].split("::")[-1] for f in failures] == ["test_every_delivery_is_signed"], [
        (f["nodeid"], f["message"][:300]) for f in failures
    ]
    [failure] = failures
    assert failure["part"] == "webhooks"
    assert failure["requirements"] == ["WEBHOOK-SIGNATURE"]
    message = failure["message"]
    assert message.startswith("§5 Authentication — webhook signature: each delivery carries")
    assert "whose signature does not verify (set aside: no other test counted them)" in message
    assert "signature does not verify over SHA-256 of the body" in message
    # the forgeries named are the rival events, each under an authentic delivery's id
    assert "OUTGOING_PAYMENT.FAILED" in message or "CUSTOMER.KYC_REJECTED" in message
    totals = result.summary["totals"]
    assert totals["failed"] == 1 and totals["errors"] == 0 and totals["passed"] > 100, totals


@pytest.mark.slow
def test_under_xdist_the_report_reads_every_sandbox_s_sink(tmp_path):
    """With a sandbox per worker, each lane's sink gets that lane's deliveries; the one
    report, run on one worker, names the forgeries every lane received."""
    result = conformance_run(
        tmp_path, "--parts=webhooks", "-n", "2", "--embedded-sandboxes=2",
        "--embedded-args=--fault webhook-forged-copy-first",
    )  # fmt: skip
    assert result.code == 1, result.output[-3000:]
    [failure] = result.summary["failures"]
    assert failure["nodeid"].endswith("::test_every_delivery_is_signed"), failure["nodeid"]
    message = failure["message"]
    assert "deliveries of this run at its 2 sinks, whose signature does not verify" in message
    assert "sink 1: #" in message and "sink 2: #" in message, message[-1500:]
