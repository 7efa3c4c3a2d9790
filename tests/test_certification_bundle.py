"""Certification bundles: a signed bundle verifies offline; any changed, added or removed
byte fails; every file passes through the redaction layer."""

from __future__ import annotations

import io
import json
import zipfile
from pathlib import Path

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec, ed25519

from conformance.reporting.bundle_signing import BundleError, sign_bundle, verify_bundle
from conformance.reporting.certify import bundle_files, main_certify, main_verify
from conformance.reporting.secrets import register_secret

FILES = {"summary.json": b'{"verdict": "passed"}\n', "evidence/a.jsonl": b'{"x": 1}\n'}


def _pem(key: ed25519.Ed25519PrivateKey | ec.EllipticCurvePrivateKey, path: Path) -> Path:
    path.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )
    public = path.with_suffix(".pub")
    public.write_bytes(
        key.public_key().public_bytes(
            serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
        )
    )
    return public


@pytest.mark.parametrize("make", [ed25519.Ed25519PrivateKey.generate,
                                  lambda: ec.generate_private_key(ec.SECP256R1())])  # fmt: skip
def test_a_signed_bundle_verifies_and_any_changed_byte_fails(make) -> None:  # type: ignore[no-untyped-def]
    key = make()
    bundle = sign_bundle(FILES, key, {"verdict": "passed"})
    verified = verify_bundle(bundle, key.public_key())
    assert verified.files == FILES and verified.manifest["verdict"] == "passed"
    for index in range(len(bundle)):
        changed = bytearray(bundle)
        changed[index] ^= 0x01
        with pytest.raises(BundleError):
            verify_bundle(bytes(changed), key.public_key())
    with pytest.raises(BundleError):
        verify_bundle(bundle + b"\0", key.public_key())
    with pytest.raises(BundleError):
        verify_bundle(bundle[:-1], key.public_key())


def _rezip(bundle: bytes, change: dict[str, bytes | None]) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(bundle)) as source, zipfile.ZipFile(out, "w") as target:
        names = source.namelist()
        for name in names:
            data = change.get(name, source.read(name))
            if data is not None:
                target.writestr(name, data)
        for name, data in change.items():
            if name not in names and data is not None:
                target.writestr(name, data)
    return out.getvalue()


def test_added_removed_or_edited_files_and_other_keys_fail() -> None:
    key = ed25519.Ed25519PrivateKey.generate()
    bundle = sign_bundle(FILES, key)
    public = key.public_key()
    for change, why in (
        ({"extra.txt": b"x"}, "added"),
        ({"evidence/a.jsonl": None}, "removed"),
        ({"summary.json": b'{"verdict": "failed"}\n'}, "changed"),
        ({"manifest.json": b"{}"}, "signature"),
    ):
        with pytest.raises(BundleError, match=why):
            verify_bundle(_rezip(bundle, change), public)
    with pytest.raises(BundleError, match="signature"):
        verify_bundle(bundle, ed25519.Ed25519PrivateKey.generate().public_key())


def _report_dir(tmp_path: Path) -> Path:
    report = tmp_path / "reports"
    (report / "evidence").mkdir(parents=True)
    summary = {
        "verdict": "passed",
        "target": {"base_url": "http://t", "environment": "sandbox"},
        "tests": [{"nodeid": "auth/t.py::t", "requirements": ["AUTH-X"], "outcome": "passed"}],
        "requirements": [{"id": "AUTH-X", "part": "auth", "status": "passed"}],
        "untested": [],
    }
    (report / "summary.json").write_text(json.dumps(summary), encoding="utf-8")
    (report / "summary.md").write_text("# PASSED\n", encoding="utf-8")
    (report / "junit.xml").write_text("<testsuites/>", encoding="utf-8")
    (report / "evidence" / "profile.json").write_text("{}", encoding="utf-8")
    (report / "evidence" / "exchanges-main.jsonl").write_text(
        '{"request_body": "client_secret=sk_live_bundle_secret_1234"}\n', encoding="utf-8"
    )
    return report


def test_bundle_files_are_redacted_and_carry_the_traceability_matrix(tmp_path: Path) -> None:
    register_secret("sk_live_bundle_secret_1234")
    files = bundle_files(_report_dir(tmp_path))
    assert not any(b"sk_live_bundle_secret_1234" in data for data in files.values())
    assert {"traceability.json", "traceability.md", "kit.json", "junit.xml"} <= set(files)
    kit = json.loads(files["kit.json"])
    assert kit["schemas_sha256"] and kit["requirements_sha256"] and kit["suite_version"]
    rows = json.loads(files["traceability.json"])
    assert all({"id", "verdict", "tests"} <= set(row) for row in rows)


def test_certify_and_verify_commands(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    public = _pem(ed25519.Ed25519PrivateKey.generate(), tmp_path / "signer.pem")
    bundle = tmp_path / "bundle.zip"
    report = _report_dir(tmp_path)
    argv = ["--signing-key", str(tmp_path / "signer.pem"), "--from-report-dir", str(report)]
    assert main_certify([*argv, "--bundle", str(bundle)]) == 0
    assert main_verify([str(bundle), "--public-key", str(public)]) == 0
    data = bytearray(bundle.read_bytes())
    data[len(data) // 2] ^= 0x20
    bundle.write_bytes(bytes(data))
    assert main_verify([str(bundle), "--public-key", str(public)]) == 1
    assert "DOES NOT VERIFY" in capsys.readouterr().err
    assert main_verify([str(bundle), "--public-key", str(tmp_path / "nope.pem")]) == 2
    assert main_certify(["--signing-key", str(public), "--from-report-dir", str(report)]) == 2
