"""Whole `conformance run`s against a hostile target: each ends within its bound, says what
it is (exit code and verdict), has clause failures only, and leaves no secret in any file.

Bounds are generous ceilings (slow CI), far below what the misbehaviour would cost without
the deadline, the preflight and the early stop.
"""

from __future__ import annotations

import base64
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from urllib.parse import quote, quote_plus

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec

from ..conformance_runs.runner import RunResult, _environment, conformance_run
from .server import ISSUED_TOKEN, HostileTarget

# secrets whose raw, base64, URL-encoded and JSON-escaped forms all differ
CREDENTIALS = {
    "": ("tok_hostile_primary", 'primary-Secret/with+"quotes"&<tags>=1'),
    "second-": ("tok_hostile_second", "second-Secret/with+plus=and spaces 2"),
    "production-": ("tok_hostile_prod", "production-Secret\\back'slash%3"),
}
RAW_EXCEPTIONS = (
    "RecursionError", "AttributeError", "TypeError", "IndexError", "OverflowError",
    "KeyError", "UnicodeDecodeError", "JSONDecodeError", "Traceback",
)  # fmt: skip
EXIT_FAILED, EXIT_NOT_RUN = 1, 3


def public_key_pem() -> str:
    key = ec.generate_private_key(ec.SECP256R1()).public_key()
    return key.public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
    ).decode()


def flags(target: HostileTarget, *extra: str) -> list[str]:
    args = [f"--target-url={target.base_url}", f"--webhook-public-key={public_key_pem()}"]
    for prefix, (client_id, secret) in CREDENTIALS.items():
        args += [f"--{prefix}client-id={client_id}", f"--{prefix}client-secret={secret}"]
    return [*args, "--request-timeout=1", "--webhook-timeout=1", *extra]


def secret_forms() -> dict[str, str]:
    """Each secret in each form an artefact could hold it."""
    forms: dict[str, str] = {}
    for client_id, secret in CREDENTIALS.values():
        basic = base64.b64encode(f"{client_id}:{secret}".encode()).decode()
        forms |= {
            f"raw {client_id}": secret,
            f"base64 {client_id}": base64.b64encode(secret.encode()).decode(),
            f"basic token {client_id}": basic,
            f"url-encoded {client_id}": quote(secret, safe=""),
            f"form-encoded {client_id}": quote_plus(secret),
            f"json-escaped {client_id}": json.dumps(secret)[1:-1],
        }
    forms["a token the target issued"] = ISSUED_TOKEN
    return forms


def leaks(report_dir: Path) -> list[str]:
    found = []
    for path in sorted(report_dir.rglob("*")):
        if not path.is_file():
            continue
        text = path.read_bytes().decode("utf-8", errors="replace")
        found += [f"{name} in {path.name}" for name, form in secret_forms().items() if form in text]
    return found


def timed_run(tmp_path: Path, target: HostileTarget, *extra: str) -> tuple[RunResult, float]:
    started = time.monotonic()
    result = conformance_run(tmp_path, *flags(target, *extra), timeout=300)
    return result, time.monotonic() - started


def raw_exceptions(result: RunResult) -> list[str]:
    texts = [f["message"] for f in result.summary.get("failures", [])]
    junit = result.report_dir / "junit.xml"
    if junit.exists():
        # the failure messages junit carries (its bodies hold tracebacks of suite code too)
        import xml.etree.ElementTree as ET

        for element in ET.parse(junit).iter():
            if element.tag in ("failure", "error"):
                texts.append(element.get("message", ""))
    return [f"{name}: {text[:300]}" for text in texts for name in RAW_EXCEPTIONS if name in text]


@pytest.mark.parametrize("mode", ["hang", "trickle", "reset", "garbage"])
def test_a_target_that_never_answers_stops_the_run_at_preflight(tmp_path, mode):
    with HostileTarget(mode) as target:
        result, elapsed = timed_run(tmp_path, target)
    assert result.code == EXIT_NOT_RUN, result.output[-3000:]
    assert result.summary["verdict"] == "not_run"
    assert "--target-url" in result.summary["incomplete_reason"]
    markdown = (tmp_path / "summary.md").read_text()
    assert "PASSED" not in markdown
    # no test was collected: the count must not read as "nothing was missed"
    assert "tests that did not run: all" in markdown
    assert leaks(tmp_path) == []
    assert elapsed < 30, f"{mode}: {elapsed:.1f} s"


@pytest.mark.parametrize("mode", ["refuse-later", "hang"])
def test_a_target_that_stops_answering_mid_run_ends_it_early(tmp_path, mode):
    # the preflight's request is answered; every later one is refused, or hangs
    with HostileTarget(mode, healthy_first=1) as target:
        result, elapsed = timed_run(tmp_path, target, "--parts=auth,errors,versioning")
    assert result.code == EXIT_NOT_RUN, result.output[-3000:]
    summary = result.summary
    assert summary["verdict"] == "not_run"
    assert "stopped answering" in summary["incomplete_reason"]
    assert summary["not_run"] > 0
    markdown = (tmp_path / "summary.md").read_text()
    assert "INCOMPLETE" in markdown and "PASSED" not in markdown
    assert raw_exceptions(result) == []
    assert leaks(tmp_path) == []
    assert elapsed < 60, f"{mode}: {elapsed:.1f} s"


def test_malformed_answers_are_clause_failures_only(tmp_path):
    with HostileTarget("mixed", healthy_first=1) as target:
        result, elapsed = timed_run(tmp_path, target, "--parts=auth,errors,versioning")
    assert result.code == EXIT_FAILED, result.output[-3000:]
    assert result.summary["totals"]["failed"] + result.summary["totals"]["errors"] > 0
    assert raw_exceptions(result) == []
    assert leaks(tmp_path) == []
    assert elapsed < 120, f"{elapsed:.1f} s"


# every part but the two that need the webhook sink: an echoing target delivers no webhook,
# so with them the run would stop at the preflight's proof of the sink (could not run)
NO_SINK_PARTS = "--parts=resources,endpoints,auth,errors,limits,versioning"


def test_an_echoing_target_leaves_no_secret_in_any_file(tmp_path):
    """Every request echoed back in HTML, JSON error messages, headers, URL-encoded and
    base64; the suite runs; no file of the run holds any secret in any form."""
    with HostileTarget("echo") as target:
        result, elapsed = timed_run(tmp_path, target, NO_SINK_PARTS)
        # the target echoed every credential (so the scan below means something)
        headers = " ".join(r.headers.get("authorization", "") for r in target.received)
    for client_id, secret in CREDENTIALS.values():
        assert base64.b64encode(f"{client_id}:{secret}".encode()).decode() in headers
    assert result.code == EXIT_FAILED, result.output[-3000:]
    assert leaks(tmp_path) == []
    assert not any(form in result.output for form in secret_forms().values())
    assert raw_exceptions(result) == []
    assert len(list((tmp_path / "allure-results").iterdir())) > 100
    assert elapsed < 240, f"{elapsed:.1f} s"


def test_a_webhook_flood_does_not_break_the_run(tmp_path):
    with HostileTarget("flood") as target:
        result, elapsed = timed_run(tmp_path, target, "--parts=webhooks")
        flooded = target.flooded
    assert result.code in (EXIT_FAILED, 0), result.output[-3000:]
    assert flooded > 0
    assert raw_exceptions(result) == []
    assert leaks(tmp_path) == []
    assert elapsed < 120, f"{elapsed:.1f} s"


def _ignore_sigint() -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)


@pytest.mark.parametrize(
    ("signal_name", "started_ignoring_sigint"),
    [("SIGINT", False), ("SIGTERM", False), ("SIGINT", True)],
    ids=["SIGINT", "SIGTERM", "SIGINT-after-a-background-start"],
)
def test_an_interrupted_run_against_a_hanging_target_says_incomplete(
    tmp_path, signal_name, started_ignoring_sigint
):
    """Stopped while a request hangs: it ends within the request's deadline, exit 4, and
    reports that say INCOMPLETE with what ran and how many tests did not. A run started in
    the background by a shell (SIGINT inherited as ignored) still stops on SIGINT."""
    with HostileTarget("hang", healthy_first=1) as target:
        args = [a for a in flags(target) if not a.startswith("--request-timeout")]
        run = subprocess.Popen(
            [sys.executable, "-m", "conformance.run.cli", "run", f"--report-dir={tmp_path}",
             *args, "--request-timeout=10", "--parts=auth,errors"],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
            stdin=subprocess.DEVNULL, env=_environment(),
            preexec_fn=_ignore_sigint if started_ignoring_sigint else None,
        )  # fmt: skip
        try:
            assert target.misbehaving.wait(120), "the run never reached the target"
            signalled = time.monotonic()
            os.kill(run.pid, getattr(signal, signal_name))
            output, _ = run.communicate(timeout=120)
            stopped_in = time.monotonic() - signalled
        finally:
            if run.poll() is None:
                run.kill()
                run.wait(10)
    assert run.returncode == 4, output[-3000:]
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert summary["verdict"] == "incomplete" and summary["not_run"] > 0
    assert summary["incomplete_reason"].startswith("stopped by")
    markdown = (tmp_path / "summary.md").read_text()
    assert "INCOMPLETE" in markdown and "PASSED" not in markdown
    assert "tests that did not run" in markdown
    assert leaks(tmp_path) == []
    assert stopped_in < 30, f"{signal_name}: {stopped_in:.1f} s"
