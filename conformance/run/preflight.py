"""Before any suite: does the target answer, accept the credentials, serve the version
segment without throttling every request, and does the webhook key parse? A few seconds,
and one clear message if not.

A run that cannot reach its target would otherwise time out request after request for half
an hour before saying anything useful.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from conformance.contract.failures import ConformanceFailure
from conformance.exchange import rate_limit
from conformance.exchange.client import ExchangeState, TargetClient
from conformance.exchange.rate_limit import retry_after_seconds
from conformance.exchange.target_health import is_throttling, throttling_problem
from conformance.ground.profile import TargetProfile

__all__ = ["PREFLIGHT_DEADLINE_S", "PreflightResult", "preflight"]

# Each preflight request gets at most this long, whatever the profile's request timeout.
PREFLIGHT_DEADLINE_S = 5.0
ATTEMPTS = 2


@dataclass(frozen=True, slots=True)
class PreflightResult:
    """``problem`` is None when the target can be tested; else what to fix."""

    problem: str | None
    elapsed_s: float


def preflight(profile: TargetProfile, state: ExchangeState) -> PreflightResult:
    """Check the target in a few seconds; say what to fix when it cannot be tested.
    ``state`` is the session's (its requests keep to --rate-limit too)."""
    started = time.monotonic()
    rate_limit.configure(state.throttle, profile.rate_limit)
    problem = _key_problem(profile) or _target_problem(profile, state)
    return PreflightResult(problem, time.monotonic() - started)


def _key_problem(profile: TargetProfile) -> str | None:
    if not profile.webhook_public_key:
        return None
    from conformance.ground.public_keys import load_public_key

    try:
        load_public_key(profile.webhook_public_key)
    except ValueError as exc:
        return f"{exc}. Fix --webhook-public-key (PEM text or the path of a PEM file)."
    return None


def _target_problem(profile: TargetProfile, state: ExchangeState) -> str | None:
    assert profile.base_url is not None
    client = TargetClient.for_profile(
        profile, timeout=min(profile.request_timeout, PREFLIGHT_DEADLINE_S), state=state
    )
    url = f"{profile.base_url}/config"
    try:
        response = None
        error = ""
        throttled = 0  # a target that throttles even these few requests cannot be tested
        for _ in range(ATTEMPTS):
            try:
                response = client.get("/config", validate=False)
            except ConformanceFailure as exc:
                error = str(exc.observed)
                continue
            if not is_throttling(response.status, response.headers.get("retry-after")):
                break
            throttled += 1
        if response is None:
            return (
                f"the target at {profile.base_url} cannot be tested: GET {url} got no answer "
                f"({error}). Check --target-url and that the server is up and answering "
                f"within {client.timeout:g} s."
            )
        retry_after = response.headers.get("retry-after")
        if is_throttling(response.status, retry_after):
            return throttling_problem(
                throttled, f"GET {url}", response.status, retry_after_seconds(retry_after),
                state.throttle.enabled,
            )  # fmt: skip
        if response.status in (401, 403):
            return (
                f"the target at {profile.base_url} refused the credentials: GET {url} answered "
                f"{response.status}. Check --client-id and --client-secret (or "
                "CONFORMANCE_CLIENT_ID / CONFORMANCE_CLIENT_SECRET) and the environment "
                f"({profile.environment})."
            )
        if response.status == 404:
            segment = profile.version_segment
            return (
                f"the target at {profile.base_url} does not serve the interface there: GET "
                f"{url} answered 404. Check that --target-url ends in the version segment the "
                f"server serves (expected /{segment or '2025-10-13'})."
            )
        if response.status in (301, 302, 303, 307, 308):
            return (
                f"the target at {profile.base_url} redirects GET {url} to "
                f"{response.headers.get('location')!r}. Give --target-url the final address."
            )
    finally:
        client.close()
    return None
