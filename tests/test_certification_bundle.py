"""Certification bundles: a signed bundle verifies offline; any changed, added or removed
byte fails; every file passes through the redaction layer; a certificate states the run's
plan, profile, kit and coverage, and certifies only a complete run whose every skip the
declared profile explains."""

from __future__ import annotations

import io
import json
import zipfile
from pathlib import Path
from types import SimpleNamespace

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec, ed25519

from conformance.contract.markers import SANDBOX_ONLY
from conformance.contract.requirements import PARTS
from conformance.ground.datafiles import SUITES_DIR
from conformance.ground.secrets import register_secret
from conformance.reporting import certificate
from conformance.reporting.bundle_signing import (
    BundleError,
    load_private_key,
    sign_bundle,
    verify_bundle,
)
from conformance.reporting.run_plan import _path_narrowing, narrowing_in_arguments
from conformance.run.certify import _narrowing, bundle_files, main_certify, main_verify

ROOT = Path(__file__).resolve().parents[1]
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


FACTS = {
    "environment": "sandbox",
    "embedded": False,
    "platform_modes": {"regulated": False, "skip_verification_paperwork": False},
    "features": ["cards"],
    "credentials": {"primary": True, "second_platform": False, "production_keys": True},
    "settings": {"webhook_public_key": True, "wallet_oidc_issuers": 1},
    "adapter": "my.adapter",
    "adapter_hooks": ["pytest_conformance_issue_card"],
    "allow_production_writes": False,
    "writes_allowed": True,
}
WAIVER = {"test": "auth/t.py::w", "requirement": None, "reason": "PAY-9: known",
          "expires": "2999-01-31"}  # fmt: skip


def _plan(**change: object) -> dict[str, object]:
    plan: dict[str, object] = {
        "complete": True,
        "parts": list(PARTS),
        "parts_not_selected": [],
        "narrowed": [],
        "tests": {"collected": 2, "deselected": 0, "selected": 2},
        "waivers": [WAIVER],
        "profile": FACTS,
    }
    return {**plan, **change}


def _summary(**change: object) -> dict[str, object]:
    summary: dict[str, object] = {
        "verdict": "passed",
        "target": {"base_url": "http://t", "environment": "sandbox"},
        "tests": [
            {"nodeid": "auth/t.py::t", "requirements": ["AUTH-X"], "outcome": "passed"},
            {"nodeid": "auth/t.py::w", "requirements": ["AUTH-W"], "outcome": "waived"},
        ],
        "requirements": [
            {"id": "AUTH-X", "part": "auth", "status": "passed"},
            {"id": "AUTH-W", "part": "auth", "status": "failed", "waived": True},
            {"id": "AUTH-N", "part": "auth", "status": "untested"},
        ],
        "untested": [
            {
                "id": "AUTH-N",
                "part": "auth",
                "testability": "not-testable",
                "why": "not-testable: nothing shows it",
            }
        ],
        "skips": [],
        "waived": [
            {
                "nodeid": "auth/t.py::w",
                "part": "auth",
                "requirements": ["AUTH-W"],
                "waiver": "PAY-9: known (expires 2999-01-31)",
            }
        ],
        "waivers": {"file": "w.toml", "expired": [], "unused": []},
        "plan": _plan(),
    }
    return {**summary, **change}


def _report_dir(tmp_path: Path, summary: dict[str, object] | None = None) -> Path:
    report = tmp_path / "reports"
    (report / "evidence").mkdir(parents=True)
    (report / "summary.json").write_text(json.dumps(summary or _summary()), encoding="utf-8")
    (report / "summary.md").write_text("# PASSED\n", encoding="utf-8")
    (report / "junit.xml").write_text("<testsuites/>", encoding="utf-8")
    (report / "evidence" / "profile.json").write_text('{"features": ["cards"]}', encoding="utf-8")
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
    capsys.readouterr()
    assert main_verify([str(bundle), "--public-key", str(public)]) == 0
    printed = capsys.readouterr().out
    for shown in (
        "run verdict passed",
        "kit: gpsi-conformance",  # the kit's version and hashes
        "plan: complete: parts resources, transitions",
        "2 tests collected, 0 deselected, 2 run",
        "profile: environment sandbox",
        "features: cards",
        "not supplied: second_platform",  # which credentials and settings, never a secret
        "adapter: my.adapter (1 hooks)",
        "coverage: 3 requirements: 1 passed, 0 failed, 1 waived, 1 untested",
        "untested AUTH-N (auth): not-testable: nothing shows it",
        "auth/t.py::w: PAY-9: known; expires 2999-01-31; used (waived auth/t.py::w)",
    ):
        assert shown in printed, printed
    manifest = json.loads(zipfile.ZipFile(bundle).read("manifest.json"))
    assert manifest["plan"]["complete"] and manifest["profile"] == {"features": ["cards"]}
    assert manifest["coverage"]["untested_list"][0]["id"] == "AUTH-N"
    data = bytearray(bundle.read_bytes())
    data[len(data) // 2] ^= 0x20
    bundle.write_bytes(bytes(data))
    assert main_verify([str(bundle), "--public-key", str(public)]) == 1
    assert "DOES NOT VERIFY" in capsys.readouterr().err
    assert main_verify([str(bundle), "--public-key", str(tmp_path / "nope.pem")]) == 2
    assert main_certify(["--signing-key", str(public), "--from-report-dir", str(report)]) == 2


def test_a_tampered_manifest_fails_verify(tmp_path: Path) -> None:
    """A certificate's statements live in the signed manifest: editing its coverage (or
    its plan) breaks the signature."""
    key = ed25519.Ed25519PrivateKey.generate()
    bundle = sign_bundle(FILES, key, {"verdict": "passed", "plan": _plan(),
                                      "coverage": {"failed": 1}})  # fmt: skip
    manifest = json.loads(zipfile.ZipFile(io.BytesIO(bundle)).read("manifest.json"))
    manifest["coverage"]["failed"] = 0
    forged = (json.dumps(manifest, indent=2, sort_keys=True) + "\n").encode()
    with pytest.raises(BundleError, match="signature"):
        verify_bundle(_rezip(bundle, {"manifest.json": forged}), key.public_key())


def test_verify_fails_a_signed_bundle_that_certifies_no_complete_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    public = _pem(ed25519.Ed25519PrivateKey.generate(), tmp_path / "signer.pem")
    key = load_private_key((tmp_path / "signer.pem").read_bytes())
    narrowed = _plan(complete=False, narrowed=[{"by": "--parts", "detail": "auth"}])
    for meta, why in (
        ({"verdict": "passed"}, "records no run plan"),  # an older kit's bundle
        ({"verdict": "passed", "plan": narrowed, "coverage": {}}, "narrowed: --parts auth"),
        ({"verdict": "incomplete", "plan": _plan(), "coverage": {}}, "partial"),
    ):
        bundle = tmp_path / "b.zip"
        bundle.write_bytes(sign_bundle(FILES, key, meta))
        assert main_verify([str(bundle), "--public-key", str(public)]) == 1
        err = capsys.readouterr().err
        assert "DOES NOT CERTIFY A COMPLETE RUN" in err and why in err


def _group(cause: str, reason: str, *tests: str) -> dict[str, object]:
    return {"cause": cause, "cause_text": cause, "supply": "", "reasons": [reason],
            "tests": list(tests) or ["auth/t.py::s"], "count": len(tests) or 1}  # fmt: skip


FEATURE_OFF = "feature 'agents' is not enabled for the target (add it to --features)"
HOOK_OFF = "needs adapter hook 'agent_device_code', which the interface does not show"
SECOND = "needs a second platform's credentials (--second-client-id/--second-client-secret)"
PRODUCTION = "needs production credentials (--production-client-id/--production-client-secret)"
WRITES = "moves money or changes configuration, which is off in production (opt in)"
SANDBOX = f"POST /sandbox/webhooks/test: {SANDBOX_ONLY}"
ISSUERS = "needs a second supported OIDC issuer (--wallet-oidc-issuers)"


@pytest.mark.parametrize(
    ("skip", "facts", "refused"),
    [
        (_group("feature", FEATURE_OFF), {}, None),
        (_group("feature", FEATURE_OFF.replace("agents", "cards")), {}, "is declared"),
        (_group("adapter_hook", HOOK_OFF), {}, None),
        (_group("adapter_hook", HOOK_OFF.replace("agent_device_code", "issue_card")), {},
         "the adapter implements pytest_conformance_issue_card"),
        (_group("missing_setting", SECOND), {}, None),
        (_group("missing_setting", PRODUCTION), {}, "the profile supplies --production"),
        (_group("missing_setting", ISSUERS), {}, None),  # one issuer declared, two needed
        (_group("production_writes", WRITES), {}, "production writes are not off"),
        (_group("production_writes", WRITES), {"environment": "production"}, None),
        (_group("environment", SANDBOX), {}, "environment is not production"),
        (_group("environment", SANDBOX), {"environment": "production"}, None),
        (_group("target", "the platform supports no currency but USD", "a::x", "a::y"), {},
         "2 test(s) skipped unexplained by the declared profile: skipped because of the "
         "target's own answers or errors (the platform supports no currency but USD): a::x, a::y"),
    ],
)  # fmt: skip
def test_a_skip_is_certified_only_when_the_declared_profile_explains_it(
    skip: dict[str, object], facts: dict[str, object], refused: str | None
) -> None:
    summary = _summary(skips=[skip], plan=_plan(profile={**FACTS, **facts}))
    problems = certificate.refusals(summary)
    if refused is None:
        assert problems == []
    else:
        assert len(problems) == 1 and refused in problems[0], problems


def test_partial_or_narrowed_runs_and_unexplained_untested_requirements_are_refused() -> None:
    assert certificate.refusals(_summary()) == []
    narrowed = _plan(
        complete=False,
        parts=["auth"],
        narrowed=[{"by": "--parts", "detail": "auth (not selected: resources, ...)"},
                  {"by": "-k", "detail": "webhook"}],
    )  # fmt: skip
    untested = [{"id": f"RES-{n}", "part": "resources", "testability": "needs-adapter",
                 "why": "x"} for n in range(7)]  # fmt: skip
    untested.append({"id": "AUTH-T", "part": "auth", "testability": "testable", "why": "x"})
    problems = certificate.refusals(_summary(plan=narrowed, untested=untested))
    assert problems == [
        "narrowed by --parts: auth (not selected: resources, ...)",
        "narrowed by -k: webhook",
        "7 checkable requirement(s) not checked, part 'resources' not selected: RES-0, RES-1, "
        "RES-2, RES-3, RES-4 (+2 more)",
        "1 checkable requirement(s) not checked, no test checking it ran: AUTH-T",
    ]
    stopped = _plan(tests={"collected": 5, "deselected": 0, "selected": 5})
    assert certificate.refusals(_summary(plan=stopped)) == [
        "3 of the 5 selected tests have no result"
    ]
    assert "partial: verdict incomplete" in certificate.refusals(_summary(verdict="incomplete"))[0]
    assert "no run plan" in certificate.refusals(_summary(plan=None))[0]


@pytest.mark.parametrize(
    ("run_args", "by"),
    [
        (["--parts", "auth"], ["--parts"]),
        (["--parts=auth,limits", "-n", "2"], ["--parts"]),
        (["--", "-k", "webhook"], ["-k"]),
        (["--", "-kwebhook"], ["-k"]),
        (["--", "-vk", "webhook", "-m", "slow"], ["-k", "-m"]),
        (["--", "-xvs"], ["-x/--maxfail"]),
        (["--", "--maxfail=3"], ["-x/--maxfail"]),
        (["--", "--deselect", "auth/t.py::t", "--lf"], ["--deselect", "--lf"]),
        (["--", "--ignore=conformance/suites/auth", "--co"], ["--ignore", "--collect-only"]),
        (["-n", "2", "--", "-p", "xdist", "-o", "x=k", "-W", "ignore", "-v"], []),
        (["--", "--maxfail=0"], []),
    ],
)
def test_narrowing_is_read_from_the_run_arguments(run_args: list[str], by: list[str]) -> None:
    assert [n["by"] for n in _narrowing(run_args)] == by
    env_parts = narrowing_in_arguments(None, [], {"CONFORMANCE_PARTS": "auth"})
    assert "from CONFORMANCE_PARTS" in env_parts[0]["detail"]


def test_certify_refuses_a_narrowed_selection_before_running_and_leaves_no_bundle(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _pem(ed25519.Ed25519PrivateKey.generate(), tmp_path / "signer.pem")
    report = tmp_path / "reports"
    report.mkdir()
    signing = ["--signing-key", str(tmp_path / "signer.pem"), f"--report-dir={report}"]
    for run_args, said in (
        (["--parts", "auth"], "narrowed by --parts: auth (not selected: resources, transitions"),
        (["--", "-k", "webhook"], "narrowed by -k: webhook"),
    ):
        (report / "certification.zip").write_bytes(b"an earlier run's bundle")
        assert main_certify([*signing, *run_args]) == 2
        err = capsys.readouterr().err
        assert "refused, no bundle written" in err and said in err, err
        assert not (report / "certification.zip").exists()  # nor a stale one
        assert not (report / "summary.json").exists()  # refused before running


def test_certify_refuses_a_narrowed_report_dir(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _pem(ed25519.Ed25519PrivateKey.generate(), tmp_path / "signer.pem")
    only_auth = [{"by": "--parts", "detail": "auth (not selected: limits)"}]
    narrowed = _plan(complete=False, parts=["auth"], narrowed=only_auth)
    untested = [{"id": "LIMIT-A", "part": "limits", "testability": "testable", "why": "x"}]
    report = _report_dir(tmp_path, _summary(plan=narrowed, untested=untested))
    (report / "certification.zip").write_bytes(b"an earlier certify's bundle")
    argv = ["--signing-key", str(tmp_path / "signer.pem"), "--from-report-dir", str(report)]
    assert main_certify(argv) == 2
    err = capsys.readouterr().err
    assert "narrowed by --parts: auth (not selected: limits)" in err
    assert "1 checkable requirement(s) not checked, part 'limits' not selected: LIMIT-A" in err
    assert not (report / "certification.zip").exists()


@pytest.mark.parametrize(
    ("args", "parts", "narrower"),
    [
        ([str(SUITES_DIR)], PARTS, None),
        (["conformance.suites"], PARTS, None),
        ([str(SUITES_DIR / "auth")], ("auth",), None),
        ([str(SUITES_DIR), str(SUITES_DIR / "auth" / "test_x.py")], PARTS, None),
        ([str(SUITES_DIR / "auth"), "conformance/suites/auth/test_x.py"], ("auth",), None),
        (["conformance/suites/auth/test_x.py::t", str(SUITES_DIR / "limits")], ("auth", "limits"),
         "auth/test_x.py::t; the folders of auth are not collected whole"),
        (["conformance.suites.auth.test_x"], ("auth",), "auth/test_x.py; the folders of auth"),
        ([str(SUITES_DIR / "auth")], PARTS, "no test path; the folders of resources, transitions"),
    ],
)  # fmt: skip
def test_paths_narrower_than_the_part_folders_narrow_the_plan(
    args: list[str], parts: tuple[str, ...], narrower: str | None
) -> None:
    config = SimpleNamespace(args=args, invocation_params=SimpleNamespace(dir=ROOT))
    found = _path_narrowing(config, frozenset(parts))  # type: ignore[arg-type]
    if narrower is None:
        assert found == []
    else:
        assert found[0]["by"] == "paths" and found[0]["detail"].startswith(narrower), found
