"""Certification and CI gating, end to end on the embedded sandbox (one part, seconds; one
whole run for the certificate): an expired waiver fails the run, a valid one waives a
failure, a run with no test is not PASSED, unknown features are usage errors, a certified
bundle states its plan and coverage, verifies offline and fails after a changed byte, and a
narrowed or partial run is never certified."""

from __future__ import annotations

import json
import re
import socket
import subprocess
from pathlib import Path

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec

from .conformance_runs.runner import _command, _environment, conformance_run

FAULT_TEST = (
    "versioning/test_deprecated_transfers.py::test_transfer_out_and_transfer_in_still_move_money"
)


def _waivers(tmp_path: Path, expires: str) -> Path:
    path = tmp_path / "waivers.toml"
    path.write_text(
        f'[[waiver]]\ntest = "{FAULT_TEST}"\nreason = "PAY-1: retired early"\n'
        f"expires = {expires}\n",
        encoding="utf-8",
    )
    return path


def test_a_valid_waiver_waives_and_an_expired_one_fails_the_run(tmp_path: Path) -> None:
    fault = "--embedded-args=--fault transfer-out-gone"
    waived = conformance_run(
        tmp_path / "valid", "--parts=versioning", fault,
        f"--waivers={_waivers(tmp_path, '2999-12-31')}",
    )  # fmt: skip
    assert waived.code == 0, waived.output
    assert waived.summary["verdict"] == "passed" and waived.summary["totals"]["waived"] == 1
    assert "PAY-1" in (waived.report_dir / "summary.md").read_text(encoding="utf-8")
    expired = conformance_run(
        tmp_path / "expired", "--parts=versioning", f"--waivers={_waivers(tmp_path, '2020-01-01')}"
    )
    assert expired.code == 1, expired.output
    assert expired.summary["verdict"] == "failed"
    assert expired.summary["waivers"]["expired"][0]["test"] == FAULT_TEST
    assert "EXPIRED waiver" in expired.output
    assert "Expired waivers" in (expired.report_dir / "summary.md").read_text(encoding="utf-8")


def test_no_test_is_not_passed_and_unknown_features_are_usage_errors(tmp_path: Path) -> None:
    nothing = conformance_run(tmp_path / "none", "--parts=versioning", "--", "-k", "no_such_test")
    assert nothing.code == 2
    assert "PASSED" not in (nothing.report_dir / "summary.md").read_text(encoding="utf-8")
    typo = conformance_run(tmp_path / "typo", "--parts=versioning", "--features=card")
    assert typo.code == 2 and "unknown feature(s) card" in typo.output
    assert "cards" in typo.output


def _certifier(tmp_path: Path) -> tuple[Path, Path]:
    key = ec.generate_private_key(ec.SECP256R1())
    private, public = tmp_path / "certifier.pem", tmp_path / "certifier.pub.pem"
    private.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )
    public.write_bytes(
        key.public_key().public_bytes(
            serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
        )
    )
    return private, public


def _cli(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        _command(list(args)), capture_output=True, text=True, timeout=300, check=False,
        env={**_environment(), **(env or {})}, stdin=subprocess.DEVNULL,
    )  # fmt: skip


# the whole suite once more (thorough tier, tests/selftest_tier.py): CI holds certify and
# verify in tests/test_certification_bundle.py and the runs of this module's other tests
@pytest.mark.thorough
@pytest.mark.long(16)  # seconds, measured
def test_a_full_certification_states_its_plan_and_coverage_and_verifies_offline(
    tmp_path: Path,
) -> None:
    """One whole serial run against the embedded sandbox (a fault waived), its report folder
    named by the profile file: the bundle is written there by default, and its verify output
    prints the plan, the profile, the kit's version, the coverage and the waivers, and fails
    after a changed byte."""
    private, public = _certifier(tmp_path)
    profile = tmp_path / "profile.toml"
    profile.write_text(f"report_dir = {json.dumps(str(tmp_path / 'reports'))}\n")
    done = _cli("certify", "--signing-key", str(private), f"--profile={profile}",
                "--embedded-args=--fault transfer-out-gone",
                f"--waivers={_waivers(tmp_path, '2999-12-31')}")  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    bundle = tmp_path / "reports" / "certification.zip"
    assert "1 waived" in done.stdout
    evidence = (tmp_path / "reports" / "evidence").glob("exchanges-*.jsonl")
    rows = [json.loads(line) for path in evidence for line in path.read_text().splitlines()]
    assert rows and all("<redacted>" in r["request_headers"].get("authorization", "<redacted>")
                        for r in rows)  # fmt: skip
    verified = _cli("verify", str(bundle), "--public-key", str(public))
    assert verified.returncode == 0, verified.stdout + verified.stderr
    printed = verified.stdout
    first = printed.splitlines()[0]  # what the certificate covers, before anything else
    assert re.search(
        r": verifies: passed: \d+ of \d+ requirements, 1 waived; \d+ untested \(", first
    )
    assert first.split(": verifies: ", 1)[1] in done.stdout  # certify said the same
    collected = json.loads((tmp_path / "reports" / "summary.json").read_text())["plan"]["tests"]
    assert collected["deselected"] == 0 and collected["selected"] == collected["collected"]
    for shown in (
        "run verdict passed",
        "kit: gpsi-conformance ",
        "plan: complete: parts resources, transitions, endpoints, auth, webhooks, errors, "
        f"limits, versioning; {collected['collected']} tests collected, 0 deselected",
        "profile: environment sandbox (the embedded reference sandbox) started with "
        "'--fault transfer-out-gone'",
        "adapter: reference.adapter",
        "waived, 22 untested",
        "untested AUTH-KEYS-SAFEKEEPING (auth): not-testable:",
        f"{FAULT_TEST}: PAY-1: retired early; expires 2999-12-31; used",
    ):
        assert shown in printed, printed
    assert "secret" not in printed.lower()
    data = bytearray(bundle.read_bytes())
    data[len(data) // 3] ^= 0x01
    bundle.write_bytes(bytes(data))
    refused = _cli("verify", str(bundle), "--public-key", str(public))
    assert refused.returncode == 1 and "DOES NOT VERIFY" in refused.stderr


def test_a_run_narrowed_where_the_arguments_do_not_show_it_is_refused_after_it(
    tmp_path: Path,
) -> None:
    """-k from PYTEST_ADDOPTS: the run's own plan says it was narrowed; no bundle, and
    none from an earlier run; the same folder given to --from-report-dir is refused too."""
    private, _ = _certifier(tmp_path)
    report = tmp_path / "reports"
    report.mkdir()
    (report / "certification.zip").write_bytes(b"an earlier run's bundle")
    done = _cli("certify", "--signing-key", str(private), f"--report-dir={report}",
                env={"PYTEST_ADDOPTS": "-k test_deprecated_transfers"})  # fmt: skip
    assert done.returncode == 2, done.stdout + done.stderr
    assert "refused, no bundle written" in done.stderr
    assert "narrowed by -k: test_deprecated_transfers" in done.stderr
    assert "checkable requirement(s) not checked, no test checking it ran" in done.stderr
    assert not (report / "certification.zip").exists()
    again = _cli("certify", "--signing-key", str(private), f"--from-report-dir={report}")
    assert again.returncode == 2 and "narrowed by -k: test_deprecated_transfers" in again.stderr


def test_a_run_that_could_not_run_is_not_certified_and_leaves_no_bundle(tmp_path: Path) -> None:
    private, _ = _certifier(tmp_path)
    report = tmp_path / "reports"
    report.mkdir()
    (report / "certification.zip").write_bytes(b"an earlier run's bundle")
    with socket.socket() as probe:  # a loopback port nothing listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    target = [f"--target-url=http://127.0.0.1:{port}", "--client-id=c", "--client-secret=s"]
    done = _cli("certify", "--signing-key", str(private), f"--report-dir={report}", *target)
    assert done.returncode == 3, done.stdout + done.stderr
    assert "no bundle: the run ended with exit 3" in done.stderr
    assert not (report / "certification.zip").exists()


def test_every_skip_and_untested_requirement_is_explained_in_summary_md(tmp_path: Path) -> None:
    # an adapter with a few hooks only: the tests needing the others skip, naming them
    deselected = "errors/test_config_validation.py::test_two_invalid_fields_are_both_named"
    run = conformance_run(
        tmp_path, "--parts=errors,limits", "--adapter=reference.adapter.states", "-n", "2",
        "--", "--deselect", deselected,
    )  # fmt: skip
    assert run.code == 0, run.output
    # the plan of a -n 2 run: the workers' collection and deselection reach the controller
    plan = run.summary["plan"]
    assert [n["by"] for n in plan["narrowed"]] == ["--parts", "--deselect"]
    assert plan["tests"]["deselected"] == 1
    assert plan["tests"]["selected"] == len(run.summary["tests"]) == plan["tests"]["collected"] - 1
    assert plan["profile"]["adapter"] == "reference.adapter.states"
    assert "pytest_conformance_issue_card" not in plan["profile"]["adapter_hooks"]
    summary, text = run.summary, (tmp_path / "summary.md").read_text(encoding="utf-8")
    skipped = [t["nodeid"] for t in summary["tests"] if t["outcome"] == "skipped"]
    assert skipped and sum(g["count"] for g in summary["skips"]) == len(skipped)
    assert all(g["cause"] != "target" and g["supply"] for g in summary["skips"])
    for nodeid in skipped:
        assert f"`{nodeid}`" in text
    untested = [r["id"] for r in summary["requirements"] if r["status"] == "untested"]
    assert untested and {r["id"] for r in summary["untested"]} == set(untested)
    for rid in untested:
        assert f"| {rid} |" in text
