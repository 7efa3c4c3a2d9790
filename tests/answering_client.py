"""A target client whose answers come from a function in the test (httpx's MockTransport):
for the suite's helpers met with answers no real target gives on demand."""

from __future__ import annotations

from collections.abc import Callable

import httpx

from conformance.contract.schemas import default_registry
from conformance.exchange.client import ExchangeLog, TargetClient
from conformance.exchange.evidence import Redactor
from conformance.ground.profile import Credentials

BASE = "http://target.invalid/2025-10-13"
SECRET = "secret-value-long-enough"


def client_answering(handler: Callable[[httpx.Request], httpx.Response]) -> TargetClient:
    """A client of ``BASE`` whose every request ``handler`` answers."""
    return TargetClient(
        base_url=BASE,
        credentials=Credentials("tok_id", SECRET),
        timeout=2.0,
        registry=default_registry(),
        log=ExchangeLog(),
        redactor=Redactor((SECRET,)),
        network=httpx.MockTransport(handler),
    )
