"""The embedded sandbox's life in a run: started early by the command line, taken by the
plugin only when it asks for the same sandbox, and never left running."""

from __future__ import annotations

import subprocess
import sys

import pytest

from conformance.run import embedded
from conformance.run.cli import _launch_sandbox_early, build_parser, suite_paths
from conformance.run.embedded import EmbeddedSandbox

_ARGS = "--quote-lifetime 3"


@pytest.fixture(autouse=True)
def _nothing_left_early():
    yield
    embedded.cancel_early()


def test_the_plugin_takes_the_sandbox_started_early_with_the_same_arguments():
    embedded.launch_early(_ARGS)
    launch = embedded.take_early(_ARGS)
    assert launch is not None
    sandbox = launch.ready()
    try:
        assert sandbox.info["base_url"].startswith("http://127.0.0.1:")
        assert embedded.take_early(_ARGS) is None  # taken once
    finally:
        sandbox.stop()
    assert sandbox.process.poll() is not None


def test_a_sandbox_started_early_with_other_arguments_is_stopped_not_taken():
    embedded.launch_early(_ARGS)
    early = embedded._early[0][1].process
    assert embedded.take_early("--regulated --quote-lifetime 3") is None
    assert early.poll() is not None


def test_one_nobody_took_is_stopped():
    embedded.launch_early(_ARGS)
    early = embedded._early[0][1].process
    embedded.cancel_early()
    assert early.poll() is not None and not embedded._early


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        (["run"], "--quote-lifetime 3"),
        (["run", "--sink-host=0.0.0.0"], "--quote-lifetime 3"),  # it hands out a loopback URL
        (["run", "--sink-host=192.168.1.5"], "--quote-lifetime 3 --allow-private-webhooks"),
        (["run", "--regulated=true"], "--regulated --quote-lifetime 3"),
        (["run", "--embedded-args=--quote-lifetime 60"], "--quote-lifetime 60"),
        (["run", "--target-url=http://127.0.0.1:9/v1", "--client-id=a", "--client-secret=b"],
         None),  # a remote target: nothing to start
        (["run", "--request-timeout=soon"], None),  # the plugin reports it
    ],
)  # fmt: skip
def test_the_command_line_starts_the_sandbox_the_profile_asks_for(argv, expected):
    _launch_sandbox_early(build_parser().parse_args(argv))
    started = [args for args, _ in embedded._early]
    assert started == ([expected] if expected is not None else [])


def test_stop_kills_a_sandbox_that_outlives_its_grace():
    stubborn = subprocess.Popen(
        [sys.executable, "-c",
         "import signal, sys, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); "
         "print('ready', flush=True); time.sleep(60)"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    assert stubborn.stdout is not None and stubborn.stdout.readline() == "ready\n"
    EmbeddedSandbox(stubborn, {}).stop(grace_s=0.05)
    assert stubborn.returncode == -9


def test_a_run_of_some_parts_collects_only_their_folders():
    assert [p.rsplit("/", 1)[-1] for p in suite_paths("auth, webhooks")] == ["auth", "webhooks"]
    assert suite_paths("auth,auth") == suite_paths("auth")
    whole = suite_paths(None)
    assert len(whole) == 1 and whole[0].endswith("suites")
    # an unknown part collects everything, and the plugin names it in a usage error
    assert suite_paths("auth,nonsense") == whole
