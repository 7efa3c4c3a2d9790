"""Fixtures for tests of the reference sandbox over real HTTP on loopback."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import httpx
import pytest

from .reference_helpers import (
    RunningSandbox,
    WebhookReceiver,
    restore_config,
    start_sandbox,
    stop_all,
)


@pytest.fixture(scope="session")
def sandbox() -> Iterator[RunningSandbox]:
    """One sandbox in default mode shared by the session; tests restore what they change."""
    running = start_sandbox()
    yield running
    running.stop()


@pytest.fixture
def launch() -> Iterator[Callable[..., RunningSandbox]]:
    """Start extra sandboxes with given flags; each is stopped at the end of the test."""
    started: list[RunningSandbox] = []

    def launch(*flags: str, db: Path | None = None) -> RunningSandbox:
        running = start_sandbox(*flags, db=db)
        started.append(running)
        return running

    yield launch
    stop_all(started)


def _restoring_client(sandbox: RunningSandbox, which: str) -> Iterator[httpx.Client]:
    with sandbox.client(which) as client:
        saved = client.get("/config").json()
        yield client
        restore_config(client, saved)


@pytest.fixture
def client(sandbox: RunningSandbox) -> Iterator[httpx.Client]:
    """The primary platform on the shared sandbox; its config is restored afterwards."""
    yield from _restoring_client(sandbox, "primary")


@pytest.fixture
def second_client(sandbox: RunningSandbox) -> Iterator[httpx.Client]:
    """The second platform on the shared sandbox; its config is restored afterwards."""
    yield from _restoring_client(sandbox, "second")


@pytest.fixture
def receiver() -> Iterator[WebhookReceiver]:
    """A loopback webhook receiver answering 200 unless told otherwise."""
    running = WebhookReceiver()
    yield running
    running.close()
