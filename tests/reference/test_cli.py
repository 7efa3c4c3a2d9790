"""``python -m reference serve``: flags, the start-up line, and shutdown."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor

import httpx
import pytest

from reference import INTERFACE_VERSION
from reference.faults import FAULTS

from .reference_helpers import PROJECT_ROOT, RunningSandbox

BANNER_KEYS = {
    "base_url",
    "client_id",
    "client_secret",
    "webhook_public_key_pem",
    "second_client_id",
    "second_client_secret",
    "production_client_id",
    "production_client_secret",
    "faults",
    "regulated",
    "skip_verification_paperwork",
    "adapter",
    "features",
    "wallet_rp_id",
    "wallet_origin",
    "wallet_oidc_issuers",
    "wallet_enclave_public_key",
    "variant",
    "pagination",
}


def run_cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "reference", *args],
        cwd=PROJECT_ROOT,
        capture_output=True,
        text=True,
        timeout=30,
    )


def test_banner_has_every_key_and_a_live_base_url(sandbox: RunningSandbox) -> None:
    assert set(sandbox.banner) == BANNER_KEYS
    assert sandbox.base_url.startswith("http://127.0.0.1:")
    assert sandbox.base_url.endswith(f"/{INTERFACE_VERSION}")
    assert sandbox.banner["webhook_public_key_pem"].startswith("-----BEGIN PUBLIC KEY-----")
    assert sandbox.banner["faults"] == []
    assert sandbox.banner["regulated"] is False
    assert sandbox.banner["skip_verification_paperwork"] is False
    with sandbox.client() as client:
        assert client.get("/config").status_code == 200


def test_mode_flags_show_in_the_banner(launch) -> None:
    running = launch("--regulated", "--skip-verification-paperwork", "--quote-lifetime", "5")
    assert running.banner["regulated"] is True
    assert running.banner["skip_verification_paperwork"] is True


def test_a_response_delay_holds_every_api_answer(launch) -> None:
    running = launch("--response-delay", "0.3")
    auth = (running.banner["client_id"], running.banner["client_secret"])

    def timed_get(_: int) -> float:
        started = time.monotonic()
        assert httpx.get(f"{running.base_url}/config", auth=auth).status_code == 200
        return time.monotonic() - started

    with ThreadPoolExecutor(max_workers=4) as pool:
        each = list(pool.map(timed_get, range(4)))
    assert min(each) >= 0.3  # a sleep is never shorter than asked: no flaky upper bound


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
def test_signals_stop_the_server_cleanly(launch, sig: signal.Signals) -> None:
    running = launch()
    assert running.stop(sig) == 0
    assert "Traceback" not in running.stderr()
    with pytest.raises(httpx.ConnectError):
        httpx.get(f"{running.base_url}/config")


def test_list_faults_prints_the_catalogue() -> None:
    result = run_cli("serve", "--list-faults")
    assert result.returncode == 0
    assert [line.split()[0] for line in result.stdout.splitlines()] == list(FAULTS)


@pytest.mark.parametrize(
    ("args", "complaint"),
    [
        (["serve", "--fault", "config-wrong-typ"], "did you mean 'config-wrong-type'"),
        (["serve", "--client-id", "only-id"], "--client-id and --client-secret"),
        (["serve", "--client-id", "a:b", "--client-secret", "x"], "no ':'"),
        (["serve", "--port", "70000"], "port must be"),
        (["serve", "--quote-lifetime", "0"], "positive number"),
        (["serve", "--response-delay", "11"], "between 0 and 10 seconds"),
        (["serve", "--response-delay", "nan"], "between 0 and 10 seconds"),
        (["serve", "--no-such-flag"], "unrecognized arguments"),
        ([], "required"),
        (["serve", "--db", "/no/such/dir/x.sqlite3"], "cannot open the database"),
    ],
)
def test_bad_flags_exit_2_with_a_message(args: list[str], complaint: str) -> None:
    result = run_cli(*args)
    assert result.returncode == 2
    assert complaint in result.stderr
    assert result.stdout == ""


def test_stdout_holds_only_the_banner_line() -> None:
    process = subprocess.Popen(
        [sys.executable, "-m", "reference", "serve"],
        cwd=PROJECT_ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        assert process.stdout is not None
        line = process.stdout.readline()
        assert line.endswith("\n")
        base_url = json.loads(line)["base_url"]
        assert base_url.startswith("http://127.0.0.1:")
        assert httpx.get(f"{base_url}/no-such-path").status_code == 401
    finally:
        process.send_signal(signal.SIGTERM)
        rest, _ = process.communicate(timeout=10)
    assert rest == ""
    assert process.returncode == 0
