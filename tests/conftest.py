"""Fixtures every self-test shares."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from conformance.exchange.client import TARGET_HEALTH


@pytest.fixture(autouse=True)
def _fresh_target_health() -> Iterator[None]:
    """The count of unanswered requests is per process: a test that provokes failures
    must not make later tests' clients take the target for down."""
    TARGET_HEALTH.reset()
    yield
    TARGET_HEALTH.reset()
