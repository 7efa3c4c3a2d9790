"""Fixtures every self-test shares."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from conformance.exchange.client import TARGET_HEALTH
from conformance.exchange.ledger import LEDGER


@pytest.fixture(autouse=True)
def _fresh_target_health() -> Iterator[None]:
    """The count of unanswered requests is per process: a test that provokes failures
    must not make later tests' clients take the target for down."""
    TARGET_HEALTH.reset()
    yield
    TARGET_HEALTH.reset()


@pytest.fixture(autouse=True)
def _fresh_ledger() -> Iterator[None]:
    """The ledger is per process, as a run's session is: self-tests whose made-up targets
    reuse one id for different resources must not be compared with each other."""
    LEDGER.clear()
    yield
    LEDGER.clear()
