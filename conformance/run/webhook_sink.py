"""The webhook sink of a run, the whole concern: which parts need it; a sink per lane,
started and registered as the target's ``webhookEndpoint`` (``LaneSink``); the proof that
the target's deliveries reach it; its fixtures; and its stop (the endpoint put back). Its
settings (``--sink-host``, ``--sink-https``, ``--sink-public-url``) are the profile's,
resolved once with it. The plugin calls ``start_sinks`` and ``stop_sink`` in the run's
order and registers this module for its fixtures.

The proof, before the suites that need the sink, that the target's deliveries reach it.

A sink the target cannot reach (a remote target and a loopback sink, a wrong
``--sink-public-url``, a tunnel that is down) turned every webhook wait of a run into a full
``--webhook-timeout`` and a clause failure blamed on the target: minutes, and dozens of
failures, for one setting. Once the sink is registered as ``webhookEndpoint``, this check
asks the target for the sandbox's ``TEST`` event (§4 ``POST /sandbox/webhooks/test``, §6
Events) and waits for its delivery, by condition, at most ``--webhook-timeout``. When none
arrives the run cannot test webhooks: it is "could not run", naming the sink's URL and the
remedies. In production the test event cannot be sent, so the check is skipped and the run
says so.

Any ``TEST`` delivery proves the path: one whose signature does not verify with the
profile's key is still a delivery, so the run goes on (the webhooks part judges signatures)
and the console says that the key, or the target's signing, is wrong. The same probe tells,
mid-run, a delivery path that broke from events a target does not send
(``conformance.webhooks.delivery_health``).
"""

from __future__ import annotations

import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from conformance.contract.failures import ConformanceFailure
from conformance.exchange.client import TargetClient
from conformance.ground import redaction
from conformance.ground.profile import TargetProfile
from conformance.run.state import SessionState, session_state
from conformance.webhooks.delivery_health import WatchedSinkView
from conformance.webhooks.sink import (
    Delivery,
    EndpointRegistration,
    SinkServer,
    SinkTimeout,
    SinkView,
    load_public_key,
    verify_signature,
)

__all__ = [
    "SINK_PARTS",
    "TEST_EVENT_PATH",
    "LaneSink",
    "SinkCheck",
    "TestEventProbe",
    "check_sink",
    "probe_test_event",
    "run_webhook_sinks",
    "sink_remedies",
    "start_sinks",
    "stop_sink",
    "webhook_sink",
    "webhook_sink_url",
]

SINK_PARTS = frozenset({"webhooks", "transitions"})  # the parts whose tests wait for events


@dataclass
class LaneSink:
    """A lane's sink: the URL the target delivers to, the control URL the suite reads
    deliveries from, and why it could not be registered; the controller also keeps the
    server and the registration, to stop it and put the endpoint back."""

    url: str | None = None
    control_url: str | None = None
    error: str | None = None
    remedy: str | None = None  # what to check about ``error``, when not the sink's remedies
    server: SinkServer | None = None
    registration: EndpointRegistration | None = None

    def worker_view(self) -> dict[str, str | None]:
        """What an xdist worker needs of it (in memory only)."""
        return {"url": self.url, "control_url": self.control_url, "error": self.error}

    @classmethod
    def from_worker_view(cls, data: dict[str, str | None]) -> LaneSink:
        return cls(url=data["url"], control_url=data["control_url"], error=data["error"])


def start_sinks(state: SessionState, notes: list[str]) -> tuple[str, float] | None:
    """Start and register each lane's sink, then prove that the target's deliveries reach it
    (the proof below); a note for the summary goes to ``notes`` and the console. The problem
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
    sink = state.sink = LaneSink(url=server.url, control_url=server.control_url, server=server)
    plumbing = TargetClient.for_profile(profile, state=state.exchange)

    def call(method: str, body: dict[str, Any] | None = None) -> Any:
        response = plumbing.request(method, "/config", json=body, validate=False)
        if 300 <= response.status < 400:  # the interface's address is elsewhere, not the sink
            raise _Redirected(
                f"{method} /config answered {response.status}, a redirect to "
                f"{response.headers.get('location')!r}"
            )
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
        sink.registration = registration
    except Exception as exc:  # any failure here is the target's; report it in the tests
        sink.error = f"registering {server.url} as webhookEndpoint failed: {exc}"
        if isinstance(exc, _Redirected):
            sink.remedy = (
                "The target redirects the interface's requests, which the kit does not follow "
                "(a redirect may drop the credentials or the body): give --target-url the "
                "final address."
            )


class _Redirected(RuntimeError):
    """The target answered the registration's request with a redirect."""


def stop_sink(lane: SessionState) -> None:
    """Put the target's webhookEndpoint back (not an embedded sandbox's: it is stopped next,
    its state thrown away) and stop the sink."""
    sink = lane.sink
    if sink is None:
        return
    if sink.registration is not None:
        try:
            if lane.embedded is None:
                sink.registration.restore()
        except Exception as exc:  # the target may be why the run stopped; say so, go on
            print(
                redaction.scrub(f"conformance: could not restore webhookEndpoint: {exc}"),
                file=sys.stderr,
            )
        sink.registration.uninstall()
    if sink.server is not None:
        sink.server.stop()


# -- the proof that deliveries reach the sink ----------------------------------------------


TEST_EVENT_PATH = "/sandbox/webhooks/test"


@dataclass(frozen=True, slots=True)
class SinkCheck:
    """``problem``: the run cannot test webhooks (could not run); ``note``: what the run
    must say on the console and in the summary, while it goes on."""

    problem: str | None = None
    note: str | None = None
    elapsed_s: float = 0.0


@dataclass(frozen=True, slots=True)
class TestEventProbe:
    """What became of one ``POST /sandbox/webhooks/test``: its answer, and its delivery."""

    __test__ = False  # not a pytest test class, whatever its name

    status: int | None  # None: the trigger got no answer (``error`` says why)
    delivery: Delivery | None
    waited_s: float
    error: str = ""

    def unproven(self, public_key: str | None) -> str | None:
        """Why no authentic TEST delivery proves the path (None when one arrived): one whose
        signature verifies with ``public_key`` (any, without a key)."""
        if self.delivery is None or not public_key:
            return self.failed_to_arrive()
        checked = verify_signature(
            load_public_key(public_key), self.delivery.body, self.delivery.signature_header
        )
        if checked.valid:
            return None
        return (
            f"a TEST delivery arrived, but its X-Service-Signature does not verify with "
            f"--webhook-public-key ({checked.reason})"
        )

    def failed_to_arrive(self) -> str | None:
        """Why no TEST delivery proves the path (None when one arrived)."""
        if self.delivery is not None:
            return None
        if self.status is None:
            return f"POST {TEST_EVENT_PATH} got no answer ({self.error})"
        if not 200 <= self.status < 300:
            return f"POST {TEST_EVENT_PATH} answered {self.status}"
        return (
            f"no TEST delivery arrived within {self.waited_s:g} s of POST {TEST_EVENT_PATH}, "
            f"which answered {self.status}"
        )


def probe_test_event(client: TargetClient, control_url: str, timeout: float) -> TestEventProbe:
    """Trigger the sandbox TEST event and wait, at most ``timeout``, for its delivery at the
    sink behind ``control_url`` (any TEST delivery after the trigger, whatever its
    signature: it proves that deliveries reach the sink)."""
    view = SinkView(control_url)  # no key: a badly signed delivery counts here too
    try:
        after = view.mark()
        try:
            response = client.post(TEST_EVENT_PATH, validate=False)
        except ConformanceFailure as exc:
            return TestEventProbe(None, None, 0.0, error=str(exc.observed))
        if not 200 <= response.status < 300:
            return TestEventProbe(response.status, None, 0.0)
        try:
            delivery = view.wait_for(
                lambda d: d.event_type == "TEST",
                timeout=timeout,
                description=f"the TEST event of POST {TEST_EVENT_PATH}",
                after=after,
            )
        except SinkTimeout:
            return TestEventProbe(response.status, None, timeout)
        return TestEventProbe(response.status, delivery, timeout)
    finally:
        view.close()


def sink_remedies(profile: TargetProfile) -> str:
    """What to check when the target's deliveries do not reach the sink (a sentence)."""
    given = (
        f"Check that --sink-public-url ({profile.sink_public_url}) reaches the sink"
        if profile.sink_public_url
        else "A target that is not on this machine cannot reach a sink on loopback: give "
        "--sink-public-url (the URL of a tunnel to the sink)"
    )
    return (
        f"{given}, or --sink-host 0.0.0.0 and a --sink-public-url the target can reach; "
        "a target that insists on HTTPS needs --sink-https true (or an https tunnel)."
    )


def check_sink(lane: SessionState) -> SinkCheck:
    """Prove the lane's sink receives the target's deliveries (see the module's docstring)."""
    started = time.monotonic()
    profile = lane.profile
    sink = lane.sink or LaneSink()
    url = sink.url or "the sink"
    problem = note = None
    if sink.error is not None:
        problem = (
            f"the webhook sink could not be registered with the target: {sink.error}. "
            f"The parts this run selected need it. {sink.remedy or sink_remedies(profile)}"
        )
    elif sink.control_url is None:
        pass
    elif profile.environment != "sandbox":
        note = (
            f"the webhook sink check was skipped: in {profile.environment} the TEST event "
            f"(POST {TEST_EVENT_PATH}) cannot be sent, so nothing proved that the target's "
            f"deliveries reach {url}; webhook waits that time out may be the sink's, not the "
            "target's"
        )
    else:
        problem, note = _judge(lane, _probe(profile, sink.control_url), url)
    return SinkCheck(problem=problem, note=note, elapsed_s=time.monotonic() - started)


def _probe(profile: TargetProfile, control_url: str) -> TestEventProbe:
    assert profile.base_url is not None
    client = TargetClient.for_profile(profile)
    try:
        return probe_test_event(client, control_url, profile.webhook_timeout)
    finally:
        client.close()


def _judge(lane: SessionState, probe: TestEventProbe, url: str) -> tuple[str | None, str | None]:
    """(problem, note) from the preflight's probe."""
    profile = lane.profile
    if probe.delivery is None and probe.status is not None and 200 <= probe.status < 300:
        return (
            f"no webhook delivery reached the sink at {url} within {probe.waited_s:g} s "
            f"(--webhook-timeout) of POST {TEST_EVENT_PATH}, which answered {probe.status}; "
            f"every webhook wait of the run would time out. {sink_remedies(profile)} If the "
            "target does reach the sink, it does not send the TEST event §4 promises."
        ), None
    if probe.delivery is None:
        refused = (
            " (sandbox endpoints take sandbox credentials only, §5: check "
            "--target-environment and the credentials)"
            if probe.status in (401, 403)
            else ""
        )
        return None, (
            f"the webhook sink check was skipped: {probe.failed_to_arrive()}{refused}, so no "
            f"TEST event proved that deliveries reach {url} (the webhooks part reports the "
            "answer)"
        )
    unsigned = probe.unproven(profile.webhook_public_key)
    if unsigned is not None:  # the path works; the key, or the target's signing, does not
        return None, (
            f"{unsigned}: check the key; deliveries do reach the sink at {url}, and the "
            "webhooks part reports the target's signatures"
        )
    return None, None


# -- fixtures ------------------------------------------------------------------------------


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
    sink = state.sink
    if sink is not None and sink.error is not None:
        pytest.fail(f"the webhook sink could not be set up: {sink.error}", pytrace=False)
    if sink is None or sink.control_url is None:
        pytest.skip("the webhook sink is not running (its parts were not selected)")
    control_url = sink.control_url

    def probe() -> str | None:
        probed = probe_test_event(client, control_url, profile.webhook_timeout)
        return probed.unproven(profile.webhook_public_key)

    # its waits are counted: a run whose webhooks never arrive stops early (delivery_health)
    return WatchedSinkView(
        control_url,
        public_key=profile.webhook_public_key,
        sink_url=sink.url or control_url,
        remedies=sink_remedies(profile),
        probe=probe if profile.environment == "sandbox" else None,
        streaks=state.delivery,
        health=state.exchange.health,
        ran_out=state.exchange.ran_out,  # a wait for what an earlier one ran out for ends at once
        # its payment events are cross-checked with what the client's answers stated
        ledger=state.exchange.ledger,
        ledger_scope=(client.base_url, client.credentials.client_id)
        if client.credentials
        else None,
    )


@pytest.fixture(scope="session")
def run_webhook_sinks(pytestconfig: pytest.Config, webhook_sink: SinkView) -> list[SinkView]:
    """Every webhook sink of the run: this lane's (``webhook_sink``) first, then, under xdist
    with a sandbox per lane, the others', each judging signatures with its target's key. A
    check of the whole run's deliveries reads them all, not only its own worker's lane."""
    state = session_state(pytestconfig)
    own = webhook_sink.control_url
    others = [
        SinkView(url, public_key=key) for url, key in state.run_sinks() if url.rstrip("/") != own
    ]
    return [webhook_sink, *others]


@pytest.fixture(scope="session")
def webhook_sink_url(pytestconfig: pytest.Config) -> str | None:
    """The sink's URL when it is registered with the target, else None."""
    state = session_state(pytestconfig)
    sink = state.sink
    return sink.url if sink is not None and sink.error is None else None
