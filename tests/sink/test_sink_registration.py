"""Registering the sink as webhookEndpoint and restoring the previous value, even on SIGTERM."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path
from types import FrameType
from typing import Any

import pytest

from conformance.webhooks.sink import EndpointRegistration

SINK_URL = "http://127.0.0.1:9/hooks"


class FakeConfig:
    """A PlatformConfig held in a dict, with the GET and PATCH the registration needs."""

    def __init__(self, **fields: Any) -> None:
        self.fields: dict[str, Any] = dict(fields)
        self.patches: list[dict[str, Any]] = []
        self.fail_next_patch = False

    def get(self) -> dict[str, Any]:
        return dict(self.fields)

    def patch(self, changes: dict[str, Any]) -> dict[str, Any]:
        if self.fail_next_patch:
            self.fail_next_patch = False
            raise ConnectionError("target unreachable")
        self.patches.append(dict(changes))
        self.fields.update(changes)
        return dict(self.fields)


@pytest.fixture
def registrations() -> Iterator[list[EndpointRegistration]]:
    """Registrations made by a test; their hooks are removed afterwards whatever happens."""
    made: list[EndpointRegistration] = []
    yield made
    for registration in made:
        registration.uninstall()


def _register(config: FakeConfig, made: list[EndpointRegistration]) -> EndpointRegistration:
    registration = EndpointRegistration(config.get, config.patch, SINK_URL)
    made.append(registration)
    return registration


def test_register_then_restore_puts_the_previous_endpoint_back(
    registrations: list[EndpointRegistration],
) -> None:
    config = FakeConfig(webhookEndpoint="https://platform.example/hooks", umaDomain="x.example")
    registration = _register(config, registrations)
    assert registration.register() == "https://platform.example/hooks"
    assert config.fields["webhookEndpoint"] == SINK_URL
    assert registration.registered
    assert registration.restore() is None
    assert config.fields == {
        "webhookEndpoint": "https://platform.example/hooks",
        "umaDomain": "x.example",
    }
    assert registration.restore() is None  # idempotent: no second PATCH
    assert config.patches == [
        {"webhookEndpoint": SINK_URL},
        {"webhookEndpoint": "https://platform.example/hooks"},
    ]


@pytest.mark.parametrize("fields", [{}, {"webhookEndpoint": None}])
def test_an_absent_endpoint_is_restored_as_null(
    fields: dict[str, Any], registrations: list[EndpointRegistration]
) -> None:
    config = FakeConfig(**fields)
    registration = _register(config, registrations)
    assert registration.register() is None
    registration.restore()
    assert config.patches[-1] == {"webhookEndpoint": None}
    assert config.fields["webhookEndpoint"] is None


def test_a_failed_restore_is_reported_not_raised_and_can_be_retried(
    registrations: list[EndpointRegistration],
) -> None:
    config = FakeConfig(webhookEndpoint="https://old.example/h")
    registration = _register(config, registrations)
    registration.register()
    config.fail_next_patch = True
    message = registration.restore()
    assert message is not None
    assert "could not restore webhookEndpoint to 'https://old.example/h'" in message
    assert "ConnectionError: target unreachable" in message
    assert registration.registered
    assert registration.restore() is None
    assert config.fields["webhookEndpoint"] == "https://old.example/h"


def test_sigterm_restores_then_chains_to_the_previous_handler(
    registrations: list[EndpointRegistration],
) -> None:
    calls: list[int] = []

    def previous(signum: int, frame: FrameType | None) -> None:
        calls.append(signum)

    original = signal.signal(signal.SIGTERM, previous)
    try:
        config = FakeConfig(webhookEndpoint="https://old.example/h")
        registration = _register(config, registrations)
        registration.register()
        assert signal.getsignal(signal.SIGTERM) != previous
        os.kill(os.getpid(), signal.SIGTERM)  # the handler runs in this (main) thread
        assert calls == [signal.SIGTERM]
        assert config.fields["webhookEndpoint"] == "https://old.example/h"
        assert signal.getsignal(signal.SIGTERM) == previous  # our handler removed itself
    finally:
        signal.signal(signal.SIGTERM, original)


def test_uninstall_puts_back_the_previous_sigterm_handler(
    registrations: list[EndpointRegistration],
) -> None:
    before = signal.getsignal(signal.SIGTERM)
    registration = _register(FakeConfig(), registrations)
    registration.register()
    assert signal.getsignal(signal.SIGTERM) != before
    registration.uninstall()
    assert signal.getsignal(signal.SIGTERM) == before
    registration.uninstall()  # twice is fine


CHILD = textwrap.dedent(
    """
    import json, signal, sys
    from pathlib import Path
    from conformance.webhooks.sink.registration import EndpointRegistration

    path = Path(sys.argv[1])
    def get():
        return json.loads(path.read_text())
    def patch(changes):
        data = get(); data.update(changes); path.write_text(json.dumps(data)); return data

    EndpointRegistration(get, patch, "http://127.0.0.1:9/hooks").register()
    print("registered", flush=True)
    if sys.argv[2] == "sigterm":
        signal.pause()
    else:
        sys.stdin.readline()  # then end normally, without calling restore()
    """
)


@pytest.mark.parametrize("ending", ["sigterm", "exit"])
def test_an_interrupted_or_forgotten_run_restores_the_endpoint(ending: str, tmp_path: Path) -> None:
    config = tmp_path / "config.json"
    config.write_text(json.dumps({"webhookEndpoint": "https://old.example/h"}))
    with subprocess.Popen(
        [sys.executable, "-c", CHILD, str(config), ending],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    ) as child:
        try:
            assert child.stdout is not None and child.stdin is not None
            assert child.stdout.readline().strip() == "registered"
            assert json.loads(config.read_text())["webhookEndpoint"] == SINK_URL
            if ending == "sigterm":
                child.send_signal(signal.SIGTERM)
            else:
                child.stdin.write("done\n")
                child.stdin.flush()
            returncode = child.wait(timeout=20)
        finally:
            if child.poll() is None:
                child.kill()
    # The default SIGTERM action still ends the process after the restore.
    assert returncode == (-signal.SIGTERM if ending == "sigterm" else 0)
    assert json.loads(config.read_text()) == {"webhookEndpoint": "https://old.example/h"}
