"""The `conformance` command: exit codes, the embedded default, a served target, secrets."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys

import pytest

from conformance.run.cli import RUN_PLUGINS, build_parser, join_dash_values, pytest_arguments

from .conformance_runs.runner import conformance_run


def test_run_builds_the_documented_pytest_command(tmp_path):
    ns = build_parser().parse_args(
        ["run", "--parts", "auth,webhooks", "--report-dir", str(tmp_path), "-n", "2",
         "--target-url", "http://h/2025-10-13", "--", "-k", "secret"]
    )  # fmt: skip
    args = pytest_arguments(ns)
    assert f"--alluredir={tmp_path / 'allure-results'}" in args
    assert f"--junitxml={tmp_path / 'junit.xml'}" in args
    assert "--conformance-parts=auth,webhooks" in args
    assert args[args.index("-n") + 1] == "2"
    assert "--target-url=http://h/2025-10-13" in args
    assert args[-2:] == ["-k", "secret"]


def test_a_run_loads_only_the_plugins_it_needs():
    """Installed plugins are not autoloaded (start-up cost, and a reorderer or a timeout
    plugin could change the run); the four a run needs are named."""
    args = pytest_arguments(build_parser().parse_args(["run"]))
    assert "--disable-plugin-autoload" in args
    named = [args[i + 1] for i, arg in enumerate(args) if arg == "-p"]
    assert set(RUN_PLUGINS) <= set(named)
    assert set(RUN_PLUGINS) == {
        "xdist",
        "allure_pytest",
        "hypothesispytest",
        "conformance.run.plugin",
    }


def test_a_profile_file_s_report_dir_is_where_the_run_writes(tmp_path):
    """The profile file's ``report_dir`` (relative to where the command runs) is the folder
    the run claims, writes and lists; its variable and ``--report-dir`` come before it."""
    (tmp_path / "profiles").mkdir()
    (tmp_path / "profiles" / "p.toml").write_text('report_dir = "from-profile"\n')
    command = [sys.executable, "-m", "conformance.run.cli", "run", "--profile=profiles/p.toml",
               "--parts=versioning"]  # fmt: skip
    env = {k: v for k, v in os.environ.items() if k != "CONFORMANCE_REPORT_DIR"}

    def run(*extra: str, **more: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [*command, *extra], capture_output=True, text=True, timeout=120, check=False,
            cwd=tmp_path, env={**env, **more},
        )  # fmt: skip

    done = run()
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    summary = json.loads((tmp_path / "from-profile" / "summary.json").read_text())
    assert summary["verdict"] == "passed"
    assert (tmp_path / "from-profile" / "junit.xml").is_file()
    assert any((tmp_path / "from-profile" / "allure-results").iterdir())
    assert "from-profile/summary.md" in done.stdout
    assert not (tmp_path / "reports").exists()
    assert not (tmp_path / "profiles" / "from-profile").exists()
    by_variable = run(CONFORMANCE_REPORT_DIR="from-variable")
    by_flag = run("--report-dir=from-flag", CONFORMANCE_REPORT_DIR="from-variable")
    assert by_variable.returncode == 0 and by_flag.returncode == 0, by_flag.stdout[-3000:]
    assert (tmp_path / "from-variable" / "summary.json").is_file()
    assert (tmp_path / "from-flag" / "summary.json").is_file()
    # the profile's folder still holds its own run's reports (the others claimed theirs)
    assert json.loads((tmp_path / "from-profile" / "summary.json").read_text()) == summary


@pytest.mark.parametrize(
    "argv",
    [
        ["run", "--target-url", "http://127.0.0.1:9/2025-10-13"],  # no credentials
        ["run", "--parts", "nonsense"],
        ["run", "--request-timeout", "soon"],
        ["launch"],
    ],
)
def test_usage_errors_exit_2(tmp_path, argv):
    done = subprocess.run(
        [sys.executable, "-m", "conformance.run.cli", *argv, "--report-dir", str(tmp_path)]
        if argv[0] == "run" else [sys.executable, "-m", "conformance.run.cli", *argv],
        capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert done.returncode == 2, done.stdout[-2000:] + done.stderr[-2000:]


@pytest.mark.parametrize(
    ("argv", "named"),
    [
        (["run", "--parts", "nonsense"], "--parts='nonsense': unknown part(s) nonsense"),
        (["run", "--profile", "no-such.toml"], "--profile='no-such.toml': no such file"),
        (["run", "--client-secret"], "--client-secret: expected one argument"),
    ],
)
def test_usage_errors_name_the_options_as_typed(tmp_path, argv, named):
    """`conformance run` spells --parts and --profile so; pytest's --conformance-parts and
    the internal names (conformance_parts) are not what the user typed."""
    done = subprocess.run(
        [sys.executable, "-m", "conformance.run.cli", *argv, "--report-dir", str(tmp_path)],
        capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    output = done.stdout + done.stderr
    assert done.returncode == 2 and named in output, output[-2000:]
    assert "--conformance-" not in output and "conformance_" not in output


def test_a_value_starting_with_a_dash_is_a_value():
    assert join_dash_values(["run", "--client-secret", "-abc", "--parts", "auth"]) == [
        "run", "--client-secret=-abc", "--parts", "auth"
    ]  # fmt: skip
    # an option of the run is not a value: argparse then says the flag has none
    assert join_dash_values(["run", "--client-secret", "--parts", "auth"])[1] == "--client-secret"
    assert join_dash_values(["run", "--", "--client-secret", "-abc"])[2:] == [
        "--client-secret", "-abc"
    ]  # fmt: skip
    for argv in (["run", "--client-secret", "-abc"], ["run", "--client-secret=-abc"]):
        ns = build_parser().parse_args(join_dash_values(argv))
        assert ns.conformance_client_secret == "-abc"
        assert "--client-secret=-abc" in pytest_arguments(ns)


def test_record_exchanges_is_an_option_of_run():
    ns = build_parser().parse_args(["run", "--record-exchanges", "--parts", "auth"])
    assert "--record-exchanges" in pytest_arguments(ns)
    assert "--record-exchanges" not in pytest_arguments(build_parser().parse_args(["run"]))


def test_serve_help_names_the_command_typed():
    done = subprocess.run(
        [sys.executable, "-m", "conformance.run.cli", "serve", "--help"],
        capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    assert done.returncode == 0 and done.stdout.startswith("usage: conformance serve ")
    assert "python -m reference" not in done.stdout


@pytest.fixture(scope="module")
def served():
    """`conformance serve` on a free port, with fixed credentials."""
    process = subprocess.Popen(
        [sys.executable, "-m", "conformance.run.cli", "serve", "--port", "0",
         "--client-id", "tok_cli_test", "--client-secret", "s3cr3t-value-for-redaction"],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
    )  # fmt: skip
    info = json.loads(process.stdout.readline())
    yield info
    process.terminate()
    process.wait(timeout=10)


def test_serve_prints_the_output_contract_line(served):
    for key in ("base_url", "client_id", "client_secret", "webhook_public_key_pem"):
        assert served[key]
    assert served["base_url"].endswith("/2025-10-13")
    assert served["client_id"] == "tok_cli_test"


def target_flags(info, secret=None):
    return [
        f"--target-url={info['base_url']}",
        f"--client-id={info['client_id']}",
        f"--client-secret={secret or info['client_secret']}",
        f"--second-client-id={info['second_client_id']}",
        f"--second-client-secret={info['second_client_secret']}",
        f"--production-client-id={info['production_client_id']}",
        f"--production-client-secret={info['production_client_secret']}",
        f"--webhook-public-key={info['webhook_public_key_pem']}",
    ]


@pytest.mark.slow
def test_a_served_target_passes_and_no_secret_reaches_a_report(tmp_path, served):
    result = conformance_run(tmp_path, *target_flags(served), "--parts=auth,endpoints,webhooks")
    assert result.code == 0, result.output[-3000:]
    secrets = [served["client_secret"], served["second_client_secret"],
               served["production_client_secret"]]  # fmt: skip
    for path in tmp_path.rglob("*"):
        if path.is_file():
            text = path.read_text(errors="replace")
            for secret in secrets:
                assert secret not in text, f"a secret leaked into {path}"
    assert any("curl" in p.read_text() for p in (tmp_path / "allure-results").glob("*attachment*"))


@pytest.mark.slow
def test_a_secret_starting_with_a_dash_works_and_exchanges_are_recorded(tmp_path):
    """`--client-secret -...` (argparse would take it for an option), against a sandbox whose
    secret starts with a dash; `--record-exchanges` as README shows it, before `--`."""
    secret = "-dash-first-secret-value"
    process = subprocess.Popen(
        [sys.executable, "-m", "conformance.run.cli", "serve", "--port", "0",
         "--client-id", "tok_dash", "--client-secret", secret],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
    )  # fmt: skip
    try:
        info = json.loads(process.stdout.readline())
        assert info["client_secret"] == secret
        result = conformance_run(
            tmp_path, "--target-url", info["base_url"], "--client-id", "tok_dash",
            "--client-secret", secret, "--parts", "versioning", "--record-exchanges",
        )  # fmt: skip
    finally:
        process.terminate()
        process.wait(timeout=10)
    assert result.code == 0, result.output[-3000:]
    assert list((tmp_path / "evidence").glob("exchanges-*.jsonl"))
    for path in tmp_path.rglob("*"):
        if path.is_file():
            assert secret not in path.read_text(errors="replace"), path


@pytest.mark.slow
def test_a_wrong_secret_stops_the_run_at_preflight(tmp_path, served):
    result = conformance_run(tmp_path, *target_flags(served, secret="not-the-secret"),
                             "--parts=auth")  # fmt: skip
    # the preflight sees the credentials refused: the run stops at once, saying what to fix
    assert result.code == 3, result.output[-3000:]
    assert result.summary["verdict"] == "not_run"
    assert "--client-secret" in result.summary["incomplete_reason"]
    assert "PASSED" not in (tmp_path / "summary.md").read_text()


def test_a_target_that_is_down_stops_the_run_at_preflight(tmp_path):
    result = conformance_run(
        tmp_path, "--target-url=http://127.0.0.1:9/2025-10-13", "--client-id=a",
        "--client-secret=b", "--parts=versioning", "--request-timeout=2",
    )  # fmt: skip
    assert result.code == 3, result.output[-3000:]
    assert result.summary["verdict"] == "not_run"
    reason = result.summary["incomplete_reason"]
    assert "connection failed" in reason and "--target-url" in reason


def read_config(info):
    """GET /config of a served reference, as its primary platform."""
    import httpx

    auth = (info["client_id"], info["client_secret"])
    return httpx.get(f"{info['base_url']}/config", auth=auth, timeout=10).json()


def set_webhook(info, url):
    import httpx

    auth = (info["client_id"], info["client_secret"])
    response = httpx.patch(f"{info['base_url']}/config", json={"webhookEndpoint": url},
                           auth=auth, timeout=10)  # fmt: skip
    assert response.status_code == 200, response.text


@pytest.mark.slow
def test_the_sink_restores_the_previous_webhook_endpoint(tmp_path, served):
    set_webhook(served, "https://hooks.example.com/original")
    result = conformance_run(tmp_path, *target_flags(served), "--parts=webhooks")
    assert result.code == 0, result.output[-3000:]
    assert read_config(served)["webhookEndpoint"] == "https://hooks.example.com/original"


@pytest.mark.slow
@pytest.mark.parametrize("signal_name", ["SIGINT", "SIGTERM"])
def test_an_interrupted_run_restores_the_webhook_endpoint(tmp_path, signal_name):
    import os
    import signal
    import time

    server = subprocess.Popen(
        [sys.executable, "-m", "reference", "serve", "--port", "0",
         "--fault", "events-never-delivered"],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
    )  # fmt: skip
    run = None
    try:
        info = json.loads(server.stdout.readline())
        set_webhook(info, "https://hooks.example.com/before-interruption")
        run = subprocess.Popen(
            [sys.executable, "-m", "conformance.run.cli", "run", f"--report-dir={tmp_path}",
             *target_flags(info), "--parts=webhooks", "--webhook-timeout=120", "--", "-v",
             "-k", "status_changes_emit_events"],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
            env={**os.environ, "PYTHONUNBUFFERED": "1"},
        )  # fmt: skip
        # the sink is registered before any test starts; wait until the test is running
        # (pytest -v prints its node id when it starts, the outcome when it ends)
        seen = ""
        while "status_changes_emit_events" not in seen:
            char = run.stdout.read(1)
            assert char, f"the run ended early: {seen[-2000:]}"
            seen += char
        assert (
            read_config(info)["webhookEndpoint"] != "https://hooks.example.com/before-interruption"
        )
        signalled = time.monotonic()
        run.send_signal(getattr(signal, signal_name))
        run.communicate(timeout=60)
        stopped_in = time.monotonic() - signalled
        assert (
            read_config(info)["webhookEndpoint"] == "https://hooks.example.com/before-interruption"
        )
        # an interrupted run says so: its own exit code, and reports that never read PASSED
        assert run.returncode == 4, seen[-2000:]
        summary = json.loads((tmp_path / "summary.json").read_text())
        assert summary["verdict"] == "incomplete" and summary["incomplete_reason"]
        markdown = (tmp_path / "summary.md").read_text()
        assert "INCOMPLETE" in markdown and "PASSED" not in markdown
        assert stopped_in < 15, f"the run took {stopped_in:.1f} s to stop"
    finally:
        if run is not None and run.poll() is None:
            run.kill()
            run.wait(timeout=10)
        server.terminate()
        server.wait(timeout=10)


@pytest.mark.slow
def test_production_profiles_do_not_change_configuration(tmp_path, served):
    result = conformance_run(
        tmp_path, *target_flags(served), "--target-environment=production",
        "--parts=endpoints,errors,limits,webhooks",
    )  # fmt: skip
    assert result.code == 0, result.output[-3000:]
    totals = result.summary["totals"]
    assert totals["skipped"] > 0 and totals["failed"] == 0
    assert "--allow-production-writes" in result.output or totals["passed"] >= 1


def run_report(report_dir, env=None):
    return subprocess.run(
        [sys.executable, "-m", "conformance.run.cli", "report", "--report-dir", str(report_dir)],
        capture_output=True, text=True, timeout=600, check=False, env=env,
    )  # fmt: skip


def test_report_without_results_is_a_usage_error(tmp_path):
    done = run_report(tmp_path)
    assert done.returncode == 2 and "no Allure results" in done.stderr


def test_report_without_node_says_what_to_install(tmp_path):
    import os

    (tmp_path / "allure-results").mkdir()
    (tmp_path / "allure-results" / "x-result.json").write_text("{}")
    env = {**os.environ, "PATH": str(tmp_path / "empty-path")}
    done = run_report(tmp_path, env=env)
    assert done.returncode == 2 and "Node.js" in done.stderr


def _tree_leaf_counts(tree):
    """How often each test appears in Allure's tree (its groups are nested label values)."""
    seen = {}

    def walk(node):
        for leaf in node.get("leaves", []):
            seen[leaf] = seen.get(leaf, 0) + 1
        for group in node.get("groups", []):
            walk(tree["groupsById"][group])

    walk(tree["root"])
    return seen


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("npm") is None, reason="Node.js and npm are not installed here")
def test_report_builds_the_html_grouped_by_part(tmp_path):
    """Each test once (the UI adds a group's count up from its children: a test under three
    stories read as three), the parts in the interface's order, the verdict in the name."""
    result = conformance_run(tmp_path, "--parts=versioning,auth")
    assert result.code == 0
    done = subprocess.run(
        [sys.executable, "-m", "conformance.run.cli", "report", "--report-dir", str(tmp_path),
         "--multi-file"],
        capture_output=True, text=True, timeout=600, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    assert "--multi-file --open" in done.stdout  # how to open what a browser will not load
    report = tmp_path / "allure-report"
    tree = json.loads((report / "widgets" / "tree.json").read_text())
    names = {group["name"] for group in tree["groupsById"].values()}
    assert {"§9 versioning", "Versioning", "VERSION-BASE-PATH"} <= names
    counts = _tree_leaf_counts(tree)
    assert set(counts.values()) == {1}
    assert len(counts) == sum(result.summary["totals"].values())
    epics = sorted(tree["groupsById"][g]["name"] for g in tree["root"]["groups"])
    assert epics == ["§5 auth", "§9 versioning"]  # by name: the interface's order
    assert json.loads((report / "summary.json").read_text())["name"].startswith(
        "GPSI conformance: PASSED for auth, versioning ("  # the name says what it covers
    )
    overview = json.loads((report / "widgets" / "allure_environment.json").read_text())
    assert {"name": "verdict", "values": ["PASSED"]} in overview
