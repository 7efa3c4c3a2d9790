"""The webhook sink of a run, the whole concern: which parts need it, its start and
registration as the target's ``webhookEndpoint`` (one sink per lane), the proof that the
target's deliveries reach it (``sink_check``), its fixtures, and its stop (the endpoint put
back). Its settings (``--sink-host``, ``--sink-https``, ``--sink-public-url``) are the
profile's, resolved once with it. The plugin calls ``start_sinks`` and ``stop_sink`` in
the run's order and registers this module for its fixtures.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

from conformance.exchange.client import TargetClient
from conformance.ground import redaction
from conformance.ground.profile import TargetProfile
from conformance.run.sink_check import check_sink, probe_test_event, sink_remedies
from conformance.run.state import SessionState, session_state
from conformance.webhooks.delivery_health import WatchedSinkView
from conformance.webhooks.sink import EndpointRegistration, SinkServer, SinkView

__all__ = ["SINK_PARTS", "start_sinks", "stop_sink", "webhook_sink", "webhook_sink_url"]

SINK_PARTS = frozenset({"webhooks", "transitions"})  # the parts whose tests wait for events


def start_sinks(state: SessionState, notes: list[str]) -> tuple[str, float] | None:
    """Start and register each lane's sink, then prove that the target's deliveries reach it
    (``sink_check``); a note for the summary goes to ``notes`` and the console. The problem
    that means the run cannot test webhooks, and how long the proof took, or None."""
    for lane in state.lanes():
        _start_sink(lane)
    for lane in state.lanes():
        checked = check_sink(lane)
        if checked.note is not None and checked.note not in notes:
            notes.append(checked.note)
            print(redaction.scrub(f"conformance: {checked.note}"), file=sys.stderr)
        if checked.problem is not None:
            return checked.problem, checked.elapsed_s
    return None


def _start_sink(state: SessionState) -> None:
    profile = state.profile
    server = SinkServer(
        host=profile.sink_host, https=profile.sink_https, public_url=profile.sink_public_url
    )
    server.start()
    state.sink_server = server
    state.sink_url = server.url
    state.sink_control_url = server.control_url
    plumbing = TargetClient.for_profile(profile)

    def call(method: str, body: dict[str, Any] | None = None) -> Any:
        response = plumbing.request(method, "/config", json=body, validate=False)
        if not 200 <= response.status < 300:
            raise RuntimeError(
                f"{method} /config answered {response.status}: "
                f"{response.content[:300].decode('utf-8', errors='replace')}"
            )
        return response.json

    registration = EndpointRegistration(
        get_config=lambda: call("GET"),
        patch_config=lambda body: call("PATCH", body),
        sink_url=server.url,
    )
    if server.ca_pem is not None:
        # a target that must trust the sink's throwaway CA finds it beside the reports
        ca_file = Path(profile.report_dir) / "sink-ca.pem"
        ca_file.parent.mkdir(parents=True, exist_ok=True)
        ca_file.write_bytes(server.ca_pem)
    try:
        registration.register()
        state.registration = registration
    except Exception as exc:  # any failure here is the target's; report it in the tests
        state.sink_error = f"registering {server.url} as webhookEndpoint failed: {exc}"


def stop_sink(lane: SessionState) -> None:
    """Put the target's webhookEndpoint back (not an embedded sandbox's: it is stopped next,
    its state thrown away) and stop the sink."""
    if lane.registration is not None:
        try:
            if lane.embedded is None:
                lane.registration.restore()
        except Exception as exc:  # the target may be why the run stopped; say so, go on
            print(
                redaction.scrub(f"conformance: could not restore webhookEndpoint: {exc}"),
                file=sys.stderr,
            )
        lane.registration.uninstall()
    if lane.sink_server is not None:
        lane.sink_server.stop()


@pytest.fixture(scope="session")
def webhook_sink(
    pytestconfig: pytest.Config, profile: TargetProfile, client: TargetClient
) -> SinkView:
    """The webhook sink, registered as the target's ``webhookEndpoint`` for this run."""
    state = session_state(pytestconfig)
    if not profile.writes_allowed:
        pytest.skip(
            "the webhook sink changes webhookEndpoint, which is off in production "
            "(opt in with --allow-production-writes true)"
        )
    if state.sink_error is not None:
        pytest.fail(f"the webhook sink could not be set up: {state.sink_error}", pytrace=False)
    if state.sink_control_url is None:
        pytest.skip("the webhook sink is not running (its parts were not selected)")
    control_url = state.sink_control_url

    def probe() -> str | None:
        probed = probe_test_event(client, control_url, profile.webhook_timeout)
        return probed.unproven(profile.webhook_public_key)

    # its waits are counted: a run whose webhooks never arrive stops early (delivery_health)
    return WatchedSinkView(
        control_url,
        public_key=profile.webhook_public_key,
        sink_url=state.sink_url or control_url,
        remedies=sink_remedies(profile),
        probe=probe if profile.environment == "sandbox" else None,
    )


@pytest.fixture(scope="session")
def webhook_sink_url(pytestconfig: pytest.Config) -> str | None:
    """The sink's URL when it is registered with the target, else None."""
    state = session_state(pytestconfig)
    return state.sink_url if state.sink_error is None else None
