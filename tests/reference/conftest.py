"""Fixtures for tests of the reference sandbox over real HTTP on loopback."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import httpx
import pytest

from .hostile_corpus import record_ids
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


@pytest.fixture(scope="session")
def regulated_sandbox() -> Iterator[RunningSandbox]:
    """A sandbox started with ``--regulated``, shared by the session."""
    running = start_sandbox("--regulated")
    yield running
    running.stop()


@pytest.fixture(scope="session")
def skip_paperwork_sandbox() -> Iterator[RunningSandbox]:
    """A sandbox started with ``--skip-verification-paperwork``, shared by the session."""
    running = start_sandbox("--skip-verification-paperwork")
    yield running
    running.stop()


@pytest.fixture
def regulated_client(regulated_sandbox: RunningSandbox) -> Iterator[httpx.Client]:
    """The primary platform of the regulated sandbox; its config is restored afterwards."""
    yield from _restoring_client(regulated_sandbox, "primary")


@pytest.fixture
def skip_paperwork_client(skip_paperwork_sandbox: RunningSandbox) -> Iterator[httpx.Client]:
    """The primary platform of the skip-paperwork sandbox; config restored afterwards."""
    yield from _restoring_client(skip_paperwork_sandbox, "primary")


@pytest.fixture(params=["regulated", "skip-paperwork"])
def early_client(request: pytest.FixtureRequest) -> httpx.Client:
    """Each platform mode where suffixes resolve early (regulated, skip paperwork)."""
    name = "regulated_client" if request.param == "regulated" else "skip_paperwork_client"
    client: httpx.Client = request.getfixturevalue(name)
    return client


@pytest.fixture(scope="module")
def target() -> Iterator[RunningSandbox]:
    """A sandbox of the module's own: the hostile corpus changes what it reaches."""
    running = start_sandbox()
    yield running
    running.stop()


@pytest.fixture(scope="module")
def ids(target: RunningSandbox) -> dict[str, str]:
    """An id of a real record of each kind a path takes, in ``target``."""
    with target.client() as client:
        return record_ids(client)
