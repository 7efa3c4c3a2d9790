"""``conformance receiver`` run for real (a subprocess, as CI runs it) against the receivers
of ``receivers.py``: each verdict, exit code and report, the could-not-run bound, an
interrupted check, a usage error, and the key commands."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from conformance.ground.exit_codes import EXIT_CODES
from conformance.run import receiver_command
from conformance.webhooks.delivering.deliveries import FORGERIES
from conformance.webhooks.delivering.event_bodies import EVENT_TYPES
from conformance.webhooks.delivering.signing_key import SigningKey, load_signing_key
from tests.receiver.receivers import serving

COMMAND = [sys.executable, "-m", "conformance.run.cli", "receiver"]
REFUSALS = "test_refused_deliveries.py::test_a_delivery_whose_signature_does_not_verify_is_refused"
IDEMPOTENCY = (
    "test_acknowledged_events.py::test_the_same_event_delivered_twice_is_acknowledged_both_times"
)
# the TEST event, each named type, the repeat, two out-of-order pairs, each forgery
ALL_CASES = 1 + len(EVENT_TYPES) + 1 + 2 + len(FORGERIES)


@dataclass
class Checked:
    code: int
    output: str
    summary: dict[str, Any]
    seconds: float

    def failed(self) -> list[str]:
        return sorted(f["nodeid"] for f in self.summary["failures"])


@pytest.fixture(scope="module")
def key_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("key") / "service-signing.pem"
    load_signing_key(path, create=True)
    return path


def check_receiver(report_dir: Path, *args: str) -> Checked:
    started = time.monotonic()
    done = subprocess.run(
        [*COMMAND, "--report-dir", str(report_dir), *args],
        capture_output=True,
        text=True,
        timeout=120,
    )
    summary = json.loads((report_dir / "summary.json").read_text(encoding="utf-8"))
    return Checked(done.returncode, done.stdout + done.stderr, summary, time.monotonic() - started)


def _public_pem(key_file: Path) -> str:
    return load_signing_key(key_file).public_pem()


def _no_secret_in(report_dir: Path, key_file: Path) -> None:
    """No line of the private key's PEM body is in any report file."""
    lines = [line for line in key_file.read_text().splitlines() if "-----" not in line]
    for path in report_dir.rglob("*"):
        if path.is_file():
            text = path.read_text(encoding="utf-8", errors="replace")
            assert not [line for line in lines if line in text], path


def test_a_correct_receiver_over_https_passes_every_case(tmp_path, key_file):
    with serving("correct", _public_pem(key_file), tls_dir=tmp_path) as receiver:
        assert receiver.ca_file is not None
        checked = check_receiver(
            tmp_path / "reports", "--url", receiver.url, "--signing-key", str(key_file),
            "--ca-file", str(receiver.ca_file),
        )  # fmt: skip
    assert checked.code == 0, checked.output[-3000:]
    summary = checked.summary
    assert summary["verdict"] == "passed"
    assert summary["totals"]["passed"] == ALL_CASES == len(summary["tests"])
    assert summary["parts"]["webhooks"]["passed"] == ALL_CASES
    assert {r["id"]: r["status"] for r in summary["requirements"]} == {
        "RECEIVER-2XX": "passed",
        "RECEIVER-SIGNATURE-REJECT": "passed",
        "RECEIVER-IDEMPOTENT": "passed",
        "RECEIVER-ANY-ORDER": "passed",
    }
    reports = tmp_path / "reports"
    assert summary["check"] == "receiver"
    markdown = (reports / "summary.md").read_text()
    assert markdown.startswith("# Receiver check: PASSED")
    assert "| webhooks |" in markdown and "| resources |" not in markdown  # only its part
    assert "<testcase" in (reports / "junit.xml").read_text()
    # Allure: each case under §6 webhooks, its deliveries attached
    results = [
        json.loads(p.read_text()) for p in (reports / "allure-results").glob("*-result.json")
    ]
    assert len(results) == ALL_CASES
    assert all(r.get("attachments") for r in results)
    assert {
        label["value"] for r in results for label in r["labels"] if label["name"] == "epic"
    } == {"§6 webhooks"}
    _no_secret_in(reports, key_file)


def test_a_receiver_that_skips_signature_checks_fails_each_refusal_case(tmp_path, key_file):
    with serving("skips-signature", _public_pem(key_file)) as receiver:
        checked = check_receiver(tmp_path, "--url", receiver.url, "--signing-key", str(key_file))
    assert checked.code == 1, checked.output[-3000:]
    assert checked.summary["verdict"] == "failed"
    assert checked.failed() == sorted(f"{REFUSALS}[{f.name}]" for f in FORGERIES)
    for failure in checked.summary["failures"]:
        assert failure["message"].startswith("§5 Authentication: "), failure["message"]
        assert "was accepted" in failure["message"] and "200" in failure["message"]


def test_a_receiver_that_verifies_a_reserialised_body_fails_that_case_only(tmp_path, key_file):
    with serving("reserialises", _public_pem(key_file)) as receiver:
        checked = check_receiver(tmp_path, "--url", receiver.url, "--signing-key", str(key_file))
    assert checked.code == 1, checked.output[-3000:]
    assert checked.failed() == [f"{REFUSALS}[signed-over-reserialised-body]"]


def test_a_receiver_that_answers_500_to_a_repeated_event_fails_the_idempotency_case(
    tmp_path, key_file
):
    with serving("500-on-repeat", _public_pem(key_file)) as receiver:
        checked = check_receiver(tmp_path, "--url", receiver.url, "--signing-key", str(key_file))
    assert checked.code == 1, checked.output[-3000:]
    assert checked.failed() == [IDEMPOTENCY]
    (failure,) = checked.summary["failures"]
    assert failure["message"].startswith("§6 Events: "), failure["message"]
    assert "second delivery of the same event" in failure["message"]
    assert "500" in failure["message"]


# Each receiver that makes one mistake real teams make, and the one case that catches it.
MISTAKES = {
    "trusts-test-flag": "marked-test-signed-by-another-key",
    "remembers-signatures": "signature-replayed-on-another-body",
    "known-id-first": "known-id-changed-body-another-key",
    "sorted-keys-fallback": "signed-over-sorted-keys",
    "strips-whitespace": "signed-without-surrounding-whitespace",
}
CARD_CASES = sorted(
    f"test_acknowledged_events.py::test_an_event_of_each_named_type_is_acknowledged[{t.name}]"
    for t in EVENT_TYPES
    if t.name.startswith("CARD_TRANSACTION.")
)


@pytest.mark.parametrize(("behaviour", "caught_by"), sorted(MISTAKES.items()))
def test_a_receiver_with_one_verification_mistake_fails_its_forgery(
    tmp_path, key_file, behaviour, caught_by
):
    with serving(behaviour, _public_pem(key_file)) as receiver:
        checked = check_receiver(tmp_path, "--url", receiver.url, "--signing-key", str(key_file))
    assert checked.code == 1, checked.output[-3000:]
    assert checked.failed() == [f"{REFUSALS}[{caught_by}]"]
    (failure,) = checked.summary["failures"]
    assert failure["message"].startswith("§5 Authentication: "), failure["message"]
    assert "was accepted" in failure["message"] and "200" in failure["message"]


def test_a_slow_receiver_fails_its_slow_cases_and_the_forgeries_are_still_judged(
    tmp_path, key_file
):
    """Card events answered after the deadline: each is that case's failure (the endpoint
    answers a TEST event right after), and the check runs to its end (scaled down: 3 s on
    card events against a 2 s deadline, as 12 s against the default 10 s)."""
    with serving("slow-cards", _public_pem(key_file), delay=3) as receiver:
        checked = check_receiver(
            tmp_path, "--url", receiver.url, "--signing-key", str(key_file),
            "--delivery-timeout", "2",
        )  # fmt: skip
    assert checked.code == 1, checked.output[-3000:]
    assert checked.summary["verdict"] == "failed"
    assert checked.failed() == CARD_CASES
    assert checked.summary["totals"]["passed"] == ALL_CASES - len(CARD_CASES)
    for failure in checked.summary["failures"]:
        assert failure["message"].startswith("§6 Events: "), failure["message"]
        assert "answered a signed TEST event" in failure["message"]


@pytest.mark.parametrize(
    ("behaviour", "delay"), [("either-encoding", 0.0), ("slow-within-deadline", 1.0)]
)
def test_correct_receivers_of_other_habits_pass(tmp_path, key_file, behaviour, delay):
    """202 and 204, 400 for a forgery, either signature encoding; or slow within the deadline."""
    with serving(behaviour, _public_pem(key_file), delay=delay) as receiver:
        checked = check_receiver(
            tmp_path, "--url", receiver.url, "--signing-key", str(key_file),
            "--delivery-timeout", "3",
        )  # fmt: skip
    assert checked.code == 0, checked.output[-3000:]
    assert checked.summary["totals"]["passed"] == ALL_CASES


def test_what_the_interface_does_not_show_fails_nothing_and_is_noted(tmp_path, key_file):
    """A receiver that refuses the event types whose payload is not shown, and rejects a
    failing signature by closing the connection: it passes, each one an advisory."""
    with serving("unusual-but-conformant", _public_pem(key_file)) as receiver:
        checked = check_receiver(tmp_path, "--url", receiver.url, "--signing-key", str(key_file))
    assert checked.code == 0, checked.output[-3000:]
    assert checked.summary["verdict"] == "passed"
    unshown = [t.name for t in EVENT_TYPES if not t.payload_shown]
    assert len(unshown) == 7
    advisories = {a["nodeid"].split("[")[1].rstrip("]"): a for a in checked.summary["advisories"]}
    assert sorted(advisories) == sorted([*unshown, *(f.name for f in FORGERIES)])
    for name in unshown:
        message = advisories[name]["message"]
        assert message.startswith("§6 Events: ") and "422" in message, message
    for forgery in FORGERIES:
        message = advisories[forgery.name]["message"]
        assert message.startswith("§5 Authentication: ") and "no HTTP answer" in message


def test_a_receiver_that_never_answers_could_not_run_within_its_bound(tmp_path, key_file):
    with serving("never-answers", _public_pem(key_file)) as receiver:
        checked = check_receiver(
            tmp_path, "--url", receiver.url, "--signing-key", str(key_file),
            "--delivery-timeout", "1",
        )  # fmt: skip
    assert checked.code == EXIT_CODES["not_run"] == 3, checked.output[-3000:]
    assert checked.summary["verdict"] == "not_run"
    assert receiver.url in checked.summary["incomplete_reason"]
    assert "no answer" in checked.summary["incomplete_reason"]
    assert "PASSED" not in (tmp_path / "summary.md").read_text()
    # one delivery's deadline, and the start and end of a process
    assert checked.seconds < 15, f"took {checked.seconds:.1f} s"


def test_a_receiver_that_stops_answering_mid_check_could_not_run(tmp_path, key_file):
    """Past the first contact, three deliveries in a row without an answer stop the check."""
    with serving("hangs-after-first", _public_pem(key_file)) as receiver:
        checked = check_receiver(
            tmp_path, "--url", receiver.url, "--signing-key", str(key_file),
            "--delivery-timeout", "1",
        )  # fmt: skip
    assert checked.code == 3, checked.output[-3000:]
    assert checked.summary["verdict"] == "not_run"
    assert "stopped answering" in checked.summary["incomplete_reason"]
    assert checked.summary["not_run"] > 0
    assert checked.seconds < 20, f"took {checked.seconds:.1f} s"


@pytest.mark.parametrize("signal_name", ["SIGINT"])
def test_an_interrupted_check_reads_incomplete(tmp_path, key_file, signal_name):
    with serving("hangs-after-first", _public_pem(key_file)) as receiver:
        process = subprocess.Popen(
            [*COMMAND, "--url", receiver.url, "--signing-key", str(key_file),
             "--delivery-timeout", "60", "--report-dir", str(tmp_path)],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
            env={**os.environ, "PYTHONUNBUFFERED": "1"},
        )  # fmt: skip
        try:
            assert receiver.state.hanging.wait(60), "the check never reached a test's delivery"
            process.send_signal(getattr(signal, signal_name))
            output, _ = process.communicate(timeout=30)
        finally:
            if process.poll() is None:
                process.kill()
                process.wait(timeout=10)
    assert process.returncode == EXIT_CODES["incomplete"] == 4, output[-3000:]
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert summary["verdict"] == "incomplete" and summary["incomplete_reason"]
    assert "PASSED" not in (tmp_path / "summary.md").read_text()


def _old_passed(folder: Path) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "summary.json").write_text(json.dumps({"verdict": "passed"}))
    (folder / "summary.md").write_text("# Conformance run: PASSED\n")


VALID = ["--url", "https://example.com/hooks", "--signing-key", "{key}"]


@pytest.mark.parametrize(
    ("args", "named"),
    [
        (["--url", "ftp://example.com/hooks", "--signing-key", "{key}"], "--url"),
        (["--url", "https://example.com/hooks", "--signing-key", "{missing}"], "--signing-key"),
        (["--url", "https://example.com/hooks"], "--signing-key"),
        ([*VALID, "--delivery-timeout", "0"], "--delivery-timeout"),
        ([*VALID, "--ca-file", "{missing}"], "--ca-file"),
        (["--no-such-flag"], "unrecognized"),
    ],
    ids=["url", "missing-key", "no-key", "timeout", "ca-file", "unknown-flag"],
)
def test_a_usage_error_exits_2_and_leaves_no_old_passed_behind(
    tmp_path, key_file, capsys, args, named
):
    """In this process: a usage error stops before pytest starts."""
    _old_passed(tmp_path)
    values = {"key": str(key_file), "missing": str(tmp_path / "missing.pem")}
    code = receiver_command.main(
        [*(arg.format(**values) for arg in args), "--report-dir", str(tmp_path)]
    )
    output = capsys.readouterr()
    assert code == 2, output
    assert named in output.err
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert summary["verdict"] == "usage_error"
    assert "PASSED" not in (tmp_path / "summary.md").read_text()


def test_new_key_makes_a_key_whose_public_half_is_printed(tmp_path, capsys):
    path = tmp_path / "new.pem"
    assert (
        receiver_command.main(["--print-public-key", "--new-key", "--signing-key", str(path)]) == 0
    )
    printed = capsys.readouterr().out
    assert printed == load_signing_key(path).public_pem()
    assert printed.startswith("-----BEGIN PUBLIC KEY-----") and "PRIVATE" not in printed
    assert path.stat().st_mode & 0o077 == 0
    assert receiver_command.main(["--print-public-key", "--signing-key", str(path)]) == 0
    assert capsys.readouterr().out == printed  # an existing key is kept
    assert SigningKey.generate().public_pem() != printed
    assert receiver_command.main(["--print-public-key", "--signing-key", str(tmp_path / "x")]) == 2
    assert "--new-key" in capsys.readouterr().err


def test_parallel_workers_are_a_usage_error(tmp_path, key_file):
    """The cases are deliveries in an order: ``-n`` is refused before any is sent."""
    _old_passed(tmp_path)
    checked = check_receiver(
        tmp_path, "--url", "http://127.0.0.1:9/never-contacted", "--signing-key", str(key_file),
        "--", "-n", "2",
    )  # fmt: skip
    assert checked.code == 2, checked.output[-3000:]
    assert "Drop -n" in checked.output
    assert checked.summary["verdict"] == "usage_error"
