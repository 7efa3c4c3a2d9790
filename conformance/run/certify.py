"""``conformance certify`` and ``conformance verify``: signed, offline-checkable evidence.

``certify`` runs the whole suite (any ``conformance run`` arguments that do not narrow it)
with every exchange recorded, then writes a bundle: ``summary.json``, ``summary.md``,
``junit.xml``, ``evidence/`` (every exchange, redacted; the redacted profile),
``traceability.json`` and ``traceability.md`` (requirement -> tests -> verdict) and
``kit.json`` (kit and interface versions, SHA-256 of every schema, of the requirements
catalogue and of the kit's code).
Every file passes through the redaction layer; the manifest of their SHA-256 is signed with
the certifier's private key (``--signing-key``, PEM, Ed25519 or ECDSA P-256).
``--from-report-dir DIR`` bundles an earlier ``conformance run --record-exchanges`` instead.
The manifest also states the run's plan, the profile (no secrets), the kit and the coverage
of the requirements, and the waivers (``certificate.py``). A run that is partial (it did not
finish, could not run, or its selection was narrowed) or whose untested requirements the
declared profile does not explain is refused: no bundle, and none left from an earlier run.

``verify BUNDLE --public-key PEM`` checks it offline and prints what it certifies: exit 0
when it verifies, 1 when it does not (any changed, added or removed byte, or a manifest that
does not certify a complete run), 2 for a usage error.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from conformance import INTERFACE_VERSION, SUITE_VERSION
from conformance.ground.exit_codes import EXIT_FAILED, EXIT_OK, EXIT_USAGE
from conformance.ground.options import RECORD_EXCHANGES_FLAG
from conformance.ground.redaction import scrub, scrub_bytes
from conformance.reporting import certificate
from conformance.reporting.bundle_signing import (
    BundleError,
    fingerprint,
    load_private_key,
    load_public_key,
    sign_bundle,
    verify_bundle,
)
from conformance.reporting.exchange_evidence import EVIDENCE_DIR

__all__ = ["bundle_files", "kit_info", "main_certify", "main_verify", "traceability"]

_PACKAGE = Path(__file__).resolve().parents[1]
_REPORTS = ("summary.json", "summary.md", "junit.xml")
BUNDLE_NAME = "certification.zip"


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def kit_info() -> dict[str, Any]:
    """The kit's identity: versions and the hashes of what decides verdicts."""
    from conformance.contract.requirements import CATALOGUE_PATH
    from conformance.ground.datafiles import schemas_dir

    root = schemas_dir()
    schemas = {
        str(p.relative_to(root)): _sha(p.read_bytes())
        for p in sorted(root.rglob("*.json"))
        if p.is_file()
    }
    code = hashlib.sha256()
    for path in sorted(_PACKAGE.rglob("*.py")):
        code.update(str(path.relative_to(_PACKAGE)).encode() + b"\0" + path.read_bytes())
    return {
        "kit": "gpsi-conformance",
        "suite_version": SUITE_VERSION,
        "interface_version": INTERFACE_VERSION,
        "python": sys.version.split()[0],
        "schemas_sha256": schemas,
        "requirements_sha256": _sha(CATALOGUE_PATH.read_bytes()),
        "code_sha256": code.hexdigest(),
    }


def traceability(summary: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Requirement -> the tests that check it -> its verdict."""
    from conformance.contract.requirements import default_catalogue

    by_id: dict[str, list[dict[str, str]]] = {}
    for test in summary.get("tests", []):
        for rid in test.get("requirements", []):
            by_id.setdefault(rid, []).append({"nodeid": test["nodeid"], "outcome": test["outcome"]})
    status = {r["id"]: r["status"] for r in summary.get("requirements", [])}
    waived = {r["id"] for r in summary.get("requirements", []) if r.get("waived")}
    why = {r["id"]: r["why"] for r in summary.get("untested", [])}
    rows = []
    for requirement in default_catalogue():
        row: dict[str, Any] = {
            "id": requirement.id,
            "section": requirement.section,
            "part": requirement.part,
            "testability": requirement.testability,
            "verdict": status.get(requirement.id, "untested"),
            "tests": by_id.get(requirement.id, []),
        }
        if requirement.id in waived:
            row["waived"] = True
        if requirement.id in why:
            row["why_untested"] = why[requirement.id]
        rows.append(row)
    return rows


def _traceability_md(rows: list[dict[str, Any]], summary: Mapping[str, Any]) -> str:
    lines = [
        f"# Traceability: requirement -> tests -> verdict (run verdict: {summary.get('verdict')})",
        "",
        "| requirement | section | verdict | tests |",
        "|---|---|---|---|",
    ]
    for row in rows:
        tests = "<br>".join(f"`{t['nodeid']}` {t['outcome']}" for t in row["tests"])
        verdict = f"{row['verdict']} (waived)" if row.get("waived") else row["verdict"]
        lines.append(
            f"| {row['id']} | {row['section']} | {verdict} "
            f"| {tests or row.get('why_untested', '')} |"
        )
    return "\n".join(lines) + "\n"


def bundle_files(report_dir: Path) -> dict[str, bytes]:
    """Every file of the bundle, scrubbed; a usage error when the run left no evidence."""
    missing = [name for name in _REPORTS if not (report_dir / name).is_file()]
    evidence = report_dir / EVIDENCE_DIR
    if missing or not (evidence / "profile.json").is_file():
        raise BundleError(
            f"{report_dir} lacks {', '.join(missing) or 'evidence/'}: certify runs the suite "
            f"itself, or give the folder of a `conformance run {RECORD_EXCHANGES_FLAG}`"
        )
    summary = json.loads((report_dir / "summary.json").read_text(encoding="utf-8"))
    rows = traceability(summary)
    files: dict[str, bytes] = {name: (report_dir / name).read_bytes() for name in _REPORTS}
    for path in sorted(evidence.rglob("*")):
        if path.is_file():
            files[path.relative_to(report_dir).as_posix()] = path.read_bytes()
    files["traceability.json"] = (json.dumps(rows, indent=2) + "\n").encode()
    files["traceability.md"] = _traceability_md(rows, summary).encode()
    files["kit.json"] = (json.dumps(kit_info(), indent=2) + "\n").encode()
    return {name: scrub_bytes(data) for name, data in files.items()}


def _certify_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="conformance certify",
        description="Run the suite and write a signed certification bundle. Any other "
        "argument goes to `conformance run` (target flags, --parts, -n, -- pytest args).",
    )
    parser.add_argument(
        "--signing-key",
        required=True,
        metavar="PEM",
        help="the certifier's private key (Ed25519 or ECDSA P-256, PEM)",
    )
    parser.add_argument("--bundle", metavar="ZIP", help="default: REPORT_DIR/certification.zip")
    parser.add_argument(
        "--from-report-dir",
        metavar="DIR",
        help="bundle an earlier `conformance run --record-exchanges` instead",
    )
    return parser


def _run_args(rest: list[str]) -> list[str]:
    if "--" in rest:
        return [*rest, RECORD_EXCHANGES_FLAG]
    return [*rest, "--", RECORD_EXCHANGES_FLAG]


def _parsed_run(rest: list[str]) -> argparse.Namespace | None:
    """The run's command line, parsed; None where it does not parse (the run reports that
    usage error itself)."""
    import contextlib
    import io

    from conformance.run.cli import build_parser, join_dash_values

    try:
        with contextlib.redirect_stderr(io.StringIO()):
            return build_parser().parse_args(join_dash_values(["run", *rest]))
    except SystemExit:
        return None


def _report_dir(rest: list[str]) -> Path:
    """The folder the run writes: as ``conformance run`` resolves it (the flag, its
    variable, the profile file's ``report_dir``), or as named where the line does not parse."""
    from conformance.run.cli import run_report_dir
    from conformance.run.run_outcome import report_dir_in

    ns = _parsed_run(rest)
    return report_dir_in(rest) if ns is None else run_report_dir(ns)


def _narrowing(rest: list[str]) -> list[dict[str, str]]:
    """How the run arguments narrow the selection, as far as they tell ([] when they do not
    parse: the run reports that usage error itself)."""
    import os

    from conformance.reporting.run_plan import narrowing_in_arguments

    ns = _parsed_run(rest)
    if ns is None:
        return []
    extra = list(ns.pytest_args)
    return narrowing_in_arguments(ns.parts, extra[1:] if extra[:1] == ["--"] else extra, os.environ)


def _refuse(problems: list[str]) -> int:
    lines = "\n".join(f"  - {problem}" for problem in problems)
    print(
        "conformance certify: refused, no bundle written: a certificate certifies a complete "
        "run (every part, every test; untested only where the declared profile says why), "
        f"and this one is not:\n{lines}\nRun `conformance certify` without narrowing the "
        "selection (no --parts, -k, -m, paths, --deselect, -x), and declare what the target "
        "lacks in its profile (--features, credentials and settings, --adapter); tests the "
        "target's own answers skipped are not certified until it answers them.",
        file=sys.stderr,
    )
    return EXIT_USAGE


def _manifest_meta(files: Mapping[str, bytes], summary: Mapping[str, Any]) -> dict[str, Any]:
    """What the signed manifest states besides the files' hashes (scrubbed)."""
    kit = json.loads(files["kit.json"])
    meta = {
        "created_at": datetime.now(UTC).isoformat(timespec="seconds").replace("+00:00", "Z"),
        "verdict": summary.get("verdict"),
        "target": summary.get("target"),
        "suite_version": SUITE_VERSION,
        "interface_version": INTERFACE_VERSION,
        "kit": {key: value for key, value in kit.items() if key != "schemas_sha256"},
        "plan": summary.get("plan"),
        "profile": json.loads(files[f"{EVIDENCE_DIR}/profile.json"]),
        "coverage": certificate.coverage(summary),
        "waivers": certificate.waiver_list(summary),
        "interface_coverage": summary.get("interface_coverage"),
    }
    meta["coverage_text"] = certificate.coverage_text(meta["verdict"], meta["coverage"])
    return dict(json.loads(scrub(json.dumps(meta))))


def main_certify(argv: Sequence[str]) -> int:
    parser = _certify_parser()
    try:
        ns, rest = parser.parse_known_args(list(argv))
    except SystemExit as exc:
        return int(exc.code or 0)
    report_dir = Path(ns.from_report_dir) if ns.from_report_dir else _report_dir(rest)
    bundle = Path(ns.bundle) if ns.bundle else report_dir / BUNDLE_NAME
    # a bundle left by an earlier run must not pass for this one's, whatever happens next
    for stale in dict.fromkeys((bundle, report_dir / BUNDLE_NAME)):
        stale.unlink(missing_ok=True)
    try:
        key = load_private_key(Path(ns.signing_key).read_bytes())
    except (OSError, BundleError) as exc:
        print(f"conformance certify: --signing-key={ns.signing_key!r}: {exc}", file=sys.stderr)
        return EXIT_USAGE
    code = EXIT_OK
    if not ns.from_report_dir:
        from conformance.run.cli import main as cli_main

        narrowed = _narrowing(rest)
        if narrowed:
            return _refuse([f"narrowed by {n['by']}: {n['detail']}" for n in narrowed])
        code = cli_main(["run", *_run_args(rest)])
        if code not in (EXIT_OK, EXIT_FAILED):
            print(
                f"conformance certify: no bundle: the run ended with exit {code}", file=sys.stderr
            )
            return code
    try:
        files = bundle_files(report_dir)
    except BundleError as exc:
        print(f"conformance certify: {exc}", file=sys.stderr)
        return EXIT_USAGE
    summary = json.loads(files["summary.json"])
    problems = certificate.refusals(summary)
    if problems:
        return _refuse(problems)
    meta = _manifest_meta(files, summary)
    bundle.parent.mkdir(parents=True, exist_ok=True)
    partial = bundle.with_name(bundle.name + ".partial")
    try:
        partial.write_bytes(sign_bundle(files, key, meta))
        partial.replace(bundle)  # whole or not at all
    finally:
        partial.unlink(missing_ok=True)
    cover = meta["coverage"]
    print(f"conformance certify: {meta['coverage_text']}")
    print(
        f"conformance certify: {bundle} ({len(files)} files, verdict {meta['verdict']}, "
        f"{cover['passed']} requirements passed, {cover['failed']} failed, {cover['waived']} "
        f"waived, {cover['untested']} untested; signer {fingerprint(key.public_key())}); "
        f"check it with `conformance verify {bundle} --public-key PUBLIC.pem`"
    )
    return code


def main_verify(argv: Sequence[str]) -> int:
    parser = argparse.ArgumentParser(
        prog="conformance verify",
        description="Check a certification bundle offline against the certifier's public key. "
        "Exit 0: it verifies; 1: it does not; 2: usage error.",
    )
    parser.add_argument("bundle", metavar="BUNDLE")
    parser.add_argument(
        "--public-key", required=True, metavar="PEM", help="the certifier's public key (PEM)"
    )
    try:
        ns = parser.parse_args(list(argv))
    except SystemExit as exc:
        return int(exc.code or 0)
    try:
        key = load_public_key(Path(ns.public_key).read_bytes())
        data = Path(ns.bundle).read_bytes()
    except (OSError, BundleError) as exc:
        print(f"conformance verify: {exc}", file=sys.stderr)
        return EXIT_USAGE
    try:
        verified = verify_bundle(data, key)
    except BundleError as exc:
        print(f"conformance verify: {ns.bundle}: DOES NOT VERIFY: {exc}", file=sys.stderr)
        return EXIT_FAILED
    manifest = verified.manifest
    lacking = certificate.not_certified(manifest)
    if lacking is not None:
        print(
            f"conformance verify: {ns.bundle}: DOES NOT CERTIFY A COMPLETE RUN (its signature "
            f"and files verify): {lacking}",
            file=sys.stderr,
        )
        return EXIT_FAILED
    told = manifest.get("coverage_text") or certificate.coverage_text(
        manifest.get("verdict"), manifest.get("coverage") or {}
    )
    print(f"conformance verify: {ns.bundle}: verifies: {told}")
    print(
        f"conformance verify: {ns.bundle}: verifies ({len(verified.files)} files, signer "
        f"{manifest.get('signer')}, created {manifest.get('created_at')}, run verdict "
        f"{manifest.get('verdict')}, suite {manifest.get('suite_version')})"
    )
    print("\n".join(certificate.describe(manifest)))
    return EXIT_OK
