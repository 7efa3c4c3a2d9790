"""The pytest plugin of ``conformance receiver``: a platform's webhook endpoint as the target.

The command line hands it the resolved ``ReceiverProfile`` (a plugin object, as ``run``
hands over its profile); without one the plugin does nothing. It runs the receiver check's
tests (``receiver_suite/``) through the machinery of ``conformance run``: the summary
reporter (with the receiver's requirements), each test's deliveries attached as evidence
(``report_writers``), the scrubbing of every report, the stop signal (``interruption``),
and the could-not-run verdict. Before the first test the endpoint must answer one signed
TEST event within the delivery deadline (any status: whether it is 2xx is a test's
verdict); an endpoint that gives no answer could not be tested (exit 3). None of the
service run's concerns apply: no embedded sandbox, no credentials, no sink.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from conformance.contract.failures import ConformanceFailure
from conformance.contract.markers import (
    ADVISORY_PROPERTY,
    RECEIVER_PART,
    apply_item_labels,
    register_markers,
)
from conformance.contract.requirements import receiver_catalogue
from conformance.exchange.client import ExchangeLog
from conformance.ground import redaction, stop_signal
from conformance.ground.exit_codes import EXIT_NOT_RUN
from conformance.ground.profile import TargetProfile
from conformance.reporting.summaries import SummaryReporter, run_outcome_of
from conformance.run.early_stop import stop_run
from conformance.run.state import STATE_KEY, SessionState
from conformance.webhooks.delivering.deliveries import signed
from conformance.webhooks.delivering.event_bodies import make_test_event
from conformance.webhooks.delivering.sender import Receiver, receiver_client
from conformance.webhooks.delivering.signing_key import SigningKey

__all__ = ["ReceiverProfile", "advisory", "receiver"]

RECEIVER_KEY = pytest.StashKey[Receiver]()


@dataclass(frozen=True, eq=False)  # a plugin object: pluggy keeps plugins in a set
class ReceiverProfile:
    """What ``conformance receiver`` checks: the endpoint, the key that signs, the CA that
    vouches for an HTTPS endpoint, the deadline of each delivery, where reports go."""

    url: str
    key: SigningKey = field(repr=False)
    report_dir: str = "reports"
    ca_file: str | None = None
    delivery_timeout: float = 10.0

    def target_view(self) -> dict[str, object]:
        """The target as the summary names it (no secret: the key is not shown)."""
        return {
            "base_url": self.url,
            "environment": "webhook receiver",
            "ca_file": self.ca_file,
            "delivery_timeout_s": self.delivery_timeout,
        }


def _handed_profile(config: pytest.Config) -> ReceiverProfile | None:
    for plugin in config.pluginmanager.get_plugins():
        if isinstance(plugin, ReceiverProfile):
            return plugin
    return None


@pytest.hookimpl(tryfirst=True)
def pytest_configure(config: pytest.Config) -> None:
    profile = _handed_profile(config)
    if profile is None:
        return
    register_markers(config)
    if getattr(config.option, "numprocesses", None) or hasattr(config, "workerinput"):
        message = (
            "conformance receiver: -n: the cases are deliveries in an order, made from one "
            "process. Drop -n."
        )
        run_outcome_of(config).usage_error = message  # the summary says it, as the console does
        raise pytest.UsageError(message)
    stop_signal.install()  # as the command did already: also when run by `cli.main`
    # the shared writers read the session's profile for the report folder and the log
    state = SessionState(
        profile=TargetProfile(
            base_url=profile.url,
            report_dir=profile.report_dir,
            request_timeout=profile.delivery_timeout,
        )
    )
    config.stash[STATE_KEY] = state
    redaction.install_allure_scrubbing()
    config.pluginmanager.import_plugin("conformance.run.interruption")
    config.pluginmanager.import_plugin("conformance.run.report_writers")
    summary = SummaryReporter(
        Path(profile.report_dir),
        receiver_catalogue(),
        profile.target_view(),
        check="receiver",
        outcome=run_outcome_of(config),
    )
    _reach(profile, summary)
    config.stash[RECEIVER_KEY] = Receiver(
        profile.url,
        profile.key,
        receiver_client(profile.delivery_timeout, state.log, profile.ca_file, state.exchange),
    )
    config.pluginmanager.register(summary, "conformance-summary")


def _reach(profile: ReceiverProfile, summary: SummaryReporter) -> None:
    """One signed TEST event before the tests: an endpoint that gives no answer within the
    deadline could not be tested; the run stops at once (exit 3), saying what to check."""
    client = receiver_client(profile.delivery_timeout, ExchangeLog(), profile.ca_file)
    probe = Receiver(profile.url, profile.key, client)
    try:
        probe.deliver(signed(make_test_event(), profile.key), probe=False)
    except ConformanceFailure as failure:
        exchange = client.log.last()
        error = exchange.error if exchange is not None else str(failure)
        problem = (
            f"the webhook endpoint {profile.url} gave no answer to a signed TEST event "
            f"({error}; each delivery's deadline is {profile.delivery_timeout:g} s). Check "
            "the URL, that the endpoint is up and reachable from here, --ca-file for an "
            "HTTPS endpoint with a private CA, and --delivery-timeout."
        )
        summary.stop_target_down(f"preflight: {problem}")
        summary.write(summary.build())
        summary.record_outcome()
        stop_run(f"could not run (exit {EXIT_NOT_RUN}): {problem}", EXIT_NOT_RUN)
    finally:
        client.close()


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if config.stash.get(RECEIVER_KEY, None) is None:
        return
    for item in items:
        apply_item_labels(item, RECEIVER_PART)


def pytest_unconfigure(config: pytest.Config) -> None:
    found = config.stash.get(RECEIVER_KEY, None)
    if found is None:
        return
    found.client.close()
    redaction.scrub_tree(Path(config.stash[STATE_KEY].profile.report_dir))


@pytest.fixture
def advisory(request: pytest.FixtureRequest) -> Callable[[str], None]:
    """Record an observation about what the interface does not show; listed in the
    reports, never failing. (The run's own fixture of that name lives in a module that
    imports every area: 0.9 s of a check that takes about one.)"""

    def record(message: str) -> None:
        request.node.user_properties.append((ADVISORY_PROPERTY, message))

    return record


@pytest.fixture(scope="session")
def receiver(request: pytest.FixtureRequest) -> Receiver:
    """The platform's webhook endpoint, with the key deliveries are signed with."""
    found = request.config.stash.get(RECEIVER_KEY, None)
    if found is None:
        pytest.skip("no webhook endpoint is configured in this run (conformance receiver)")
    return found
