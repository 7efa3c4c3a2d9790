"""Certification and CI gating, end to end on the embedded sandbox (one part, seconds):
an expired waiver fails the run, a valid one waives a failure, a run with no test is not
PASSED, unknown features are usage errors, and a certified bundle verifies offline and fails
after a changed byte."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec

from .conformance_runs.runner import _environment, conformance_run

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


def test_a_certified_bundle_verifies_offline_and_fails_after_a_changed_byte(
    tmp_path: Path,
) -> None:
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
    bundle = tmp_path / "bundle.zip"

    def cli(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "conformance.run.cli", *args], capture_output=True, text=True,
            timeout=300, check=False, env=_environment(), stdin=subprocess.DEVNULL,
        )  # fmt: skip

    done = cli("certify", "--signing-key", str(private), "--bundle", str(bundle),
               f"--report-dir={tmp_path / 'reports'}", "--parts=versioning")  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    evidence = (tmp_path / "reports" / "evidence").glob("exchanges-*.jsonl")
    rows = [json.loads(line) for path in evidence for line in path.read_text().splitlines()]
    assert rows and all("<redacted>" in r["request_headers"].get("authorization", "<redacted>")
                        for r in rows)  # fmt: skip
    assert cli("verify", str(bundle), "--public-key", str(public)).returncode == 0
    data = bytearray(bundle.read_bytes())
    data[len(data) // 3] ^= 0x01
    bundle.write_bytes(bytes(data))
    refused = cli("verify", str(bundle), "--public-key", str(public))
    assert refused.returncode == 1 and "DOES NOT VERIFY" in refused.stderr


def test_every_skip_and_untested_requirement_is_explained_in_summary_md(tmp_path: Path) -> None:
    # an adapter with a few hooks only: the tests needing the others skip, naming them
    run = conformance_run(
        tmp_path, "--parts=errors,limits", "--adapter=reference.adapter.states", "-n", "2"
    )
    assert run.code == 0, run.output
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
