"""The composite GitHub Action: its inputs reach the run, its exit codes are the CLI's, its
verdict is this run's, and README documents its real inputs and defaults."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from datetime import UTC, datetime
from pathlib import Path

import pytest
import yaml

from conformance.ground import options as opt
from conformance.ground.exit_codes import EXIT_CODES, EXIT_FAILED, EXIT_OK, EXIT_USAGE
from conformance.reporting.action_outputs import derive_verdict, this_runs_summary

ACTION = Path(__file__).resolve().parents[1] / "action.yml"


def test_the_action_is_a_composite_whose_inputs_are_all_used() -> None:
    action = yaml.safe_load(ACTION.read_text(encoding="utf-8"))
    assert action["runs"]["using"] == "composite"
    text = ACTION.read_text(encoding="utf-8")
    for name in action["inputs"]:
        assert f"inputs.{name}" in text, name
    envs = set(re.findall(r"\b(CONFORMANCE_[A-Z_]+):", text))
    known = {s.env for s in opt.SETTINGS} | {opt.PROFILE_ENV, opt.WAIVERS_ENV, opt.BASELINE_ENV}
    assert envs <= known, envs - known


def test_the_documented_exit_codes_are_the_cli_s() -> None:
    description = yaml.safe_load(ACTION.read_text(encoding="utf-8"))["description"]
    for code, words in (
        (EXIT_OK, "no test failed"),
        (EXIT_FAILED, "a waiver expired"),
        (EXIT_USAGE, "no test ran"),
        (EXIT_CODES["not_run"], "could not be tested"),
        (EXIT_CODES["incomplete"], "did not finish"),
    ):
        assert re.search(rf"{code} [^;.]*{words}", description), (code, words)


# -- the verdict output: this run's exit code and its own summary -----------------------------

ACTION_DOC = yaml.safe_load(ACTION.read_text(encoding="utf-8"))
RUN_STEP = next(step for step in ACTION_DOC["runs"]["steps"] if step.get("id") == "run")
STALE = {"verdict": "passed", "started_at": "2020-01-01T00:00:00Z", "totals": {}}


def _write_summary(folder: Path, verdict: str, started_at: str, markdown: str) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    summary = {"verdict": verdict, "started_at": started_at}
    (folder / "summary.json").write_text(json.dumps(summary), encoding="utf-8")
    (folder / "summary.md").write_text(markdown, encoding="utf-8")


def _stale_folder(tmp_path: Path) -> Path:
    """A report folder an earlier run left: PASSED, written long ago."""
    folder = tmp_path / "conformance-reports"
    _write_summary(folder, "passed", STALE["started_at"], "# Conformance run: PASSED (old)\n")
    for name in ("summary.json", "summary.md"):
        os.utime(folder / name, (1577836800, 1577836800))
    return folder


@pytest.mark.parametrize(
    ("code", "summary_verdict", "expected"),
    [
        (0, "passed", "passed"),
        (0, None, "passed"),
        (1, "failed", "failed"),
        (1, "passed", "failed"),  # a summary that disagrees does not decide
        (2, "no_tests", "no_tests"),
        (2, None, "usage_error"),
        (3, "not_run", "not_run"),
        (3, None, "not_run"),
        (4, "incomplete", "incomplete"),
        (4, None, "incomplete"),
        (137, None, "incomplete"),
    ],
)
def test_the_verdict_is_the_exit_code_s_refined_by_this_run_s_summary(
    code, summary_verdict, expected
):
    summary = {"verdict": summary_verdict} if summary_verdict else None
    assert derive_verdict(code, summary) == expected


def test_only_a_summary_this_run_wrote_counts(tmp_path):
    folder = _stale_folder(tmp_path)
    started = time.time()
    assert this_runs_summary(folder, started) is None  # an earlier run's
    assert this_runs_summary(tmp_path / "none", started) is None  # no summary at all
    os.utime(folder / "summary.json")  # copied just now, still another run's
    assert this_runs_summary(folder, started) is None
    now = datetime.now(UTC).isoformat(timespec="seconds").replace("+00:00", "Z")
    _write_summary(folder, "no_tests", now, "# Conformance run: NO TEST RAN\n")
    assert this_runs_summary(folder, started)["verdict"] == "no_tests"
    (folder / "summary.json").write_text("{not json", encoding="utf-8")
    assert this_runs_summary(folder, started) is None


FAKE_CONFORMANCE = """#!/bin/sh
# stands in for `conformance run`: writes this run's summary if asked, exits with a code
if [ -n "$FAKE_VERDICT" ]; then
  python - <<'PY'
import json, os, pathlib
from datetime import UTC, datetime
folder = pathlib.Path(os.environ["CONFORMANCE_REPORT_DIR"])
now = datetime.now(UTC).isoformat(timespec="seconds").replace("+00:00", "Z")
summary = {"verdict": os.environ["FAKE_VERDICT"], "started_at": now}
(folder / "summary.json").write_text(json.dumps(summary))
(folder / "summary.md").write_text("# Conformance run: this run's\\n")
PY
fi
exit "$FAKE_CODE"
"""


@pytest.mark.parametrize(
    ("code", "writes", "expected"),
    [
        (0, "passed", "passed"),
        (1, "failed", "failed"),
        (2, None, "usage_error"),  # seen: verdict=passed with exit-code=2 (a stale summary)
        (2, "no_tests", "no_tests"),
        (3, None, "not_run"),
        (3, "not_run", "not_run"),
        (4, None, "incomplete"),
        (4, "incomplete", "incomplete"),
    ],
)
def test_the_action_step_outputs_this_run_s_verdict(tmp_path, code, writes, expected):
    """The Action's run step as GitHub runs it (bash -eo pipefail), a stand-in for the
    command, and an earlier run's PASSED summary in the report folder."""
    folder = _stale_folder(tmp_path)
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    fake = bin_dir / "conformance"
    fake.write_text(FAKE_CONFORMANCE, encoding="utf-8")
    fake.chmod(0o755)
    script = tmp_path / "step.sh"
    script.write_text(RUN_STEP["run"], encoding="utf-8")
    outputs, step_summary = tmp_path / "outputs", tmp_path / "step-summary.md"
    env = {
        "PATH": os.pathsep.join([str(bin_dir), str(Path(sys.executable).parent), "/usr/bin",
                                 "/bin"]),
        "GITHUB_OUTPUT": str(outputs),
        "GITHUB_STEP_SUMMARY": str(step_summary),
        "CONFORMANCE_REPORT_DIR": str(folder),
        "INPUT_WORKERS": "2",
        "FAKE_CODE": str(code),
        "FAKE_VERDICT": writes or "",
    }  # fmt: skip
    done = subprocess.run(
        ["bash", "--noprofile", "--norc", "-eo", "pipefail", str(script)],
        env=env, capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr  # the gate is a later step
    lines = outputs.read_text(encoding="utf-8").splitlines()
    assert f"exit-code={code}" in lines and f"verdict={expected}" in lines, lines
    job_summary = step_summary.read_text(encoding="utf-8")
    assert "(old)" not in job_summary  # never the earlier run's summary
    assert ("this run's" in job_summary) == (writes is not None)


def test_the_run_step_reads_no_expression_github_would_substitute():
    """The step's script is tested as it stands: it takes every input from its environment."""
    assert "${{" not in RUN_STEP["run"]
    assert "conformance.reporting.action_outputs" in RUN_STEP["run"]


def test_the_documented_inputs_and_defaults_are_the_action_s():
    """README's "In CI: the GitHub Action" names every input with its real default."""
    readme = (ACTION.parent / "README.md").read_text(encoding="utf-8")
    section = readme.split("## In CI: the GitHub Action", 1)[1].split("\n## ", 1)[0]
    inputs_text = section.split("Inputs:", 1)[1].split("Outputs:", 1)[0]
    documented = dict(re.findall(r"`([a-z-]+)`(?: \(`?([^)`;]*))?", inputs_text))
    for name, spec in ACTION_DOC["inputs"].items():
        assert name in documented, f"README does not name the input {name}"
        if spec.get("default"):
            assert documented[name].startswith(spec["default"]), (name, documented[name])
    outputs_text = section.split("Outputs:", 1)[1]
    for name in ACTION_DOC["outputs"]:
        assert f"`{name}`" in outputs_text, name


RECORDING_CONFORMANCE = """#!/bin/sh
# stands in for the command: records its arguments, exits 0 without a summary
printf '%s\\n' "$@" > "$RECORDED_ARGS"
exit 0
"""


def test_the_receiver_check_gets_its_inputs_and_a_private_key_file(tmp_path):
    """check "receiver": `conformance receiver` with the endpoint, a key given as PEM text
    written to a file only the job reads, the CA file and the delivery deadline."""
    from conformance.webhooks.delivering.signing_key import SigningKey

    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    fake = bin_dir / "conformance"
    fake.write_text(RECORDING_CONFORMANCE, encoding="utf-8")
    fake.chmod(0o755)
    script = tmp_path / "step.sh"
    script.write_text(RUN_STEP["run"], encoding="utf-8")
    pem = SigningKey.generate().private_pem().decode()
    recorded, runner_temp = tmp_path / "args", tmp_path / "runner-temp"
    runner_temp.mkdir()
    env = {
        "PATH": os.pathsep.join([str(bin_dir), str(Path(sys.executable).parent), "/usr/bin",
                                 "/bin"]),
        "GITHUB_OUTPUT": str(tmp_path / "outputs"),
        "GITHUB_STEP_SUMMARY": str(tmp_path / "step-summary.md"),
        "CONFORMANCE_REPORT_DIR": str(tmp_path / "reports"),
        "RUNNER_TEMP": str(runner_temp),
        "RECORDED_ARGS": str(recorded),
        "INPUT_WORKERS": "2",
        "INPUT_CHECK": "receiver",
        "INPUT_RECEIVER_URL": "https://platform.example.com/hooks",
        "INPUT_SIGNING_KEY": pem,
        "INPUT_CA_FILE": "platform-ca.pem",
        "INPUT_DELIVERY_TIMEOUT": "",
    }  # fmt: skip
    done = subprocess.run(
        ["bash", "--noprofile", "--norc", "-eo", "pipefail", str(script)],
        env=env, capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    key_file = runner_temp / "conformance-signing-key.pem"
    assert recorded.read_text().splitlines() == [
        "receiver", "--url", "https://platform.example.com/hooks",
        "--signing-key", str(key_file), "--ca-file", "platform-ca.pem",
    ]  # fmt: skip
    assert key_file.read_text().strip() == pem.strip()
    assert key_file.stat().st_mode & 0o077 == 0
    assert pem.splitlines()[1] not in done.stdout + done.stderr
    assert "exit-code=0" in (tmp_path / "outputs").read_text()


def test_every_credential_key_and_wallet_setting_a_profile_takes_is_an_input():
    """A profile's credentials, keys and wallet settings can all be given to the Action."""
    text = ACTION.read_text(encoding="utf-8")
    wanted = [
        s.env
        for s in opt.SETTINGS
        if any(word in s.env for word in ("CLIENT", "KEY", "WALLET", "FEATURES", "ADAPTER"))
    ]
    assert len(wanted) >= 12
    for env in wanted:
        assert re.search(rf"\b{env}: \$\{{\{{ inputs\.[a-z-]+ \}}\}}", text), env


def test_check_certify_runs_certify_with_the_key_from_a_secret(tmp_path):
    """check "certify": `conformance certify` with the certifier's key, given as PEM text,
    written to a file only the job reads; the workers as for a run."""
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import ed25519

    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    fake = bin_dir / "conformance"
    fake.write_text(RECORDING_CONFORMANCE, encoding="utf-8")
    fake.chmod(0o755)
    script = tmp_path / "step.sh"
    script.write_text(RUN_STEP["run"], encoding="utf-8")
    pem = ed25519.Ed25519PrivateKey.generate().private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    ).decode()  # fmt: skip
    recorded, runner_temp, outputs = tmp_path / "args", tmp_path / "runner-temp", tmp_path / "o"
    runner_temp.mkdir()
    env = {
        "PATH": os.pathsep.join([str(bin_dir), str(Path(sys.executable).parent), "/usr/bin",
                                 "/bin"]),
        "GITHUB_OUTPUT": str(outputs),
        "GITHUB_STEP_SUMMARY": str(tmp_path / "step-summary.md"),
        "CONFORMANCE_REPORT_DIR": str(tmp_path / "reports"),
        "CONFORMANCE_SECOND_CLIENT_ID": "",
        "RUNNER_TEMP": str(runner_temp),
        "RECORDED_ARGS": str(recorded),
        "INPUT_WORKERS": "2",
        "INPUT_CHECK": "certify",
        "INPUT_CERTIFY_KEY": pem,
    }  # fmt: skip
    done = subprocess.run(
        ["bash", "--noprofile", "--norc", "-eo", "pipefail", str(script)],
        env=env, capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    key_file = runner_temp / "conformance-certify-key.pem"
    assert recorded.read_text().splitlines() == ["certify", "--signing-key", str(key_file),
                                                 "-n", "2"]  # fmt: skip
    assert key_file.read_text().strip() == pem.strip()
    assert key_file.stat().st_mode & 0o077 == 0
    assert pem.splitlines()[1] not in done.stdout + done.stderr
    lines = outputs.read_text().splitlines()
    assert "exit-code=0" in lines and "certificate=" in lines and "headline=PASSED" in lines
