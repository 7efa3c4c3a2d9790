"""The schema registry the schema tests share."""

from __future__ import annotations

import pytest

from conformance.contract.schemas import SchemaRegistry


@pytest.fixture(scope="module")
def registry() -> SchemaRegistry:
    """The kit's own schema documents, loaded once per test module."""
    return SchemaRegistry.load()
