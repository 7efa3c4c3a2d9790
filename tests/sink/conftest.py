"""Fixtures for the sink's tests: a running sink, a loopback HTTP client, signing keys."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest
from cryptography.hazmat.primitives.asymmetric import ec

from conformance.webhooks.sink import SinkServer, SinkView


@pytest.fixture(scope="session")
def ec_key() -> ec.EllipticCurvePrivateKey:
    return ec.generate_private_key(ec.SECP256R1())


@pytest.fixture(scope="session")
def other_ec_key() -> ec.EllipticCurvePrivateKey:
    return ec.generate_private_key(ec.SECP256R1())


@pytest.fixture
def sink() -> Iterator[SinkServer]:
    with SinkServer() as server:
        yield server
        server.check_errors()


@pytest.fixture
def http() -> Iterator[httpx.Client]:
    with httpx.Client(trust_env=False, timeout=10.0) as client:
        yield client


@pytest.fixture
def view(sink: SinkServer, ec_key: ec.EllipticCurvePrivateKey) -> Iterator[SinkView]:
    with SinkView(sink.control_url, public_key=ec_key.public_key()) as reader:
        yield reader
