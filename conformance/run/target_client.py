"""The target's client for the run's own plumbing (the preflight, the sink's registration
and its proof): one place that turns a profile into a client, so each of them reaches the
target with the same credentials, deadline and scrubbing as the tests do."""

from __future__ import annotations

from conformance.contract.schemas import default_registry
from conformance.exchange.client import ExchangeLog, TargetClient
from conformance.exchange.evidence import Redactor
from conformance.ground.profile import TargetProfile

__all__ = ["plumbing_client"]


def plumbing_client(profile: TargetProfile, *, timeout: float | None = None) -> TargetClient:
    """A client of the profile's target acting as its primary platform (without
    credentials when the profile has none), with its own throwaway evidence log, and
    ``timeout`` (default: the profile's request deadline)."""
    assert profile.base_url is not None
    return TargetClient(
        base_url=profile.base_url,
        credentials=profile.primary if profile.client_id and profile.client_secret else None,
        timeout=profile.request_timeout if timeout is None else timeout,
        registry=default_registry(),
        log=ExchangeLog(),
        redactor=Redactor.for_profile(profile),
    )
