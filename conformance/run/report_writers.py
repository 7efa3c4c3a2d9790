"""What a run writes, the whole concern: the summary reporter (``summary.json``,
``summary.md``), each test's exchanges (the evidence folder with ``--record-exchanges``,
Allure attachments, the failure's last exchanges on the console), the scrubbing of every
report and of the terminal, and the last pass over the report folder. JUnit XML and Allure
results are pytest's and allure-pytest's, pointed at the report folder by the command line.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import allure
import pytest

from conformance.contract.markers import REQUESTS_PROPERTY, REQUIREMENTS_PROPERTY, item_part
from conformance.contract.requirements import default_catalogue
from conformance.exchange.evidence import Exchange
from conformance.exchange.run_state import ExchangeState
from conformance.exchange.target_health import count_throttling
from conformance.ground import redaction
from conformance.ground.profile import TargetProfile
from conformance.reporting import causes
from conformance.reporting.exchange_evidence import record as record_exchanges
from conformance.reporting.exchange_evidence import start as start_evidence
from conformance.reporting.interface_coverage import (
    COVERAGE_PROPERTY,
    RECORDER_KEY,
    InterfaceCoverage,
    Recorder,
)
from conformance.reporting.summaries import TARGET_DOWN_PROPERTY, SummaryReporter, run_outcome_of
from conformance.run.state import STATE_KEY

__all__ = ["MAX_ATTACHED_EXCHANGES", "last_scrub", "start_reports", "target_view"]

MAX_ATTACHED_EXCHANGES = 40


def start_reports(config: pytest.Config, profile: TargetProfile, earlier: Any) -> SummaryReporter:
    """The run's summary reporter (compared with the ``earlier`` baseline, if any), with the
    evidence folder started and Allure's attachments scrubbed."""
    redaction.install_allure_scrubbing()
    summary = SummaryReporter(
        Path(profile.report_dir),
        default_catalogue(),
        target_view(profile),
        outcome=run_outcome_of(config),
    )
    summary.baseline = earlier
    summary.coverage = InterfaceCoverage(lambda: _deliveries(config))
    start_evidence(config, profile)
    return summary


def _deliveries(config: pytest.Config) -> list[Any]:
    """Every delivery the run's sinks (this process's lanes) received."""
    state = config.stash.get(STATE_KEY, None)
    lanes = [] if state is None else [state, *state.other_lanes]
    return [
        delivery
        for lane in lanes
        if lane.sink is not None and lane.sink.server is not None
        for delivery in lane.sink.server.store.since(0)
    ]


def last_scrub(profile: TargetProfile) -> None:
    """The last pass: whatever any writer left in the report folder, scrubbed."""
    redaction.scrub_tree(Path(profile.report_dir))


def target_view(profile: TargetProfile) -> dict[str, Any]:
    """The target as the summary names it, with the profile settings the run took on trust
    (the target does not show them: the summary's hints compare its failures with them)."""
    return {
        "base_url": profile.base_url,
        "environment": profile.environment,
        "regulated": profile.regulated,
        "skip_verification_paperwork": profile.skip_verification_paperwork,
        "features": list(profile.features),
    }


@pytest.hookimpl(tryfirst=True)
def pytest_sessionstart(session: pytest.Session) -> None:
    if session.config.stash.get(STATE_KEY, None) is not None:
        redaction.install_terminal_scrubbing(session.config)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]):  # type: ignore[no-untyped-def]
    outcome = yield
    state = item.config.stash.get(STATE_KEY, None)
    if state is None or item_part(item) is None:
        return
    report: pytest.TestReport = outcome.get_result()
    exchanges = state.log.take() if call.when == "call" or report.failed else []
    if report.failed and not exchanges and call.excinfo is not None:
        _count_a_remembered_throttle(call.excinfo.value, state.exchange)
    if call.when in ("setup", "call"):  # a defect met on the way blocks, charged once
        own = [
            r
            for k, v in item.user_properties
            if k == REQUIREMENTS_PROPERTY
            for r in str(v).split(",")
        ]
        causes.charge(report, own, call.excinfo.value if call.excinfo else None)
    down = state.exchange.health.down
    if down is not None:
        report.user_properties.append((TARGET_DOWN_PROPERTY, down))
        item.session.shouldstop = f"conformance: {down}"
    if call.when == "call" or (call.when == "setup" and not report.passed):
        record_exchanges(item.config, state.profile.report_dir, report.nodeid, exchanges)
        report.user_properties.append((REQUESTS_PROPERTY, len(exchanges)))
        _note_coverage(item.config, report, exchanges)
        _attach_exchanges(exchanges)
        if report.failed and exchanges and item.config.get_verbosity() > 0:
            # the console shows them with -v; the evidence and Allure always hold them
            shown = exchanges[-5:]
            text = "\n\n".join(e.to_text() for e in shown)
            report.sections.append(
                (f"conformance exchanges (last {len(shown)} of {len(exchanges)})", text)
            )
    redaction.scrub_report(report)


def _note_coverage(config: pytest.Config, report: pytest.TestReport, exchanges: list[Any]) -> None:
    """What the test's exchanges add to the interface coverage map, on its report (so the
    controller adds up every worker's)."""
    recorder = config.stash.setdefault(RECORDER_KEY, Recorder())
    contribution = recorder.contribution(exchanges)
    if contribution:
        report.user_properties.append((COVERAGE_PROPERTY, json.dumps(contribution)))


def _count_a_remembered_throttle(failure: BaseException, state: ExchangeState) -> None:
    """A test that failed on a throttling answer it did not ask for itself (a fixture's
    failure, which pytest raises again for each test that asks for it) counts as one more
    throttled answer: it could not proceed either, yet sent nothing the client counts."""
    exchange = getattr(failure, "exchange", None)
    if not isinstance(exchange, Exchange) or exchange.status is None:
        return
    headers = {name.lower(): value for name, value in exchange.response_headers.items()}
    count_throttling(
        f"{exchange.method} {exchange.url}",
        exchange.status,
        headers.get("retry-after"),
        state.health,
        state.throttle,
    )


def _attach_exchanges(exchanges: list[Any]) -> None:
    """One attachment per test holding its exchanges in order, each under its summary line.

    One file per test rather than per exchange: a run writes ~3,000 exchanges, and each file
    is written, then read back by the last redaction pass; the file count was a third of a
    serial run's system time.
    """
    if not exchanges:
        return
    shown = exchanges[-MAX_ATTACHED_EXCHANGES:]
    parts = []
    if len(exchanges) > len(shown):
        parts.append(f"{len(exchanges)} exchanges; the last {len(shown)} are attached")
    first = len(exchanges) - len(shown) + 1
    for index, exchange in enumerate(shown, first):
        parts.append(f"=== {index:02d} {exchange.summary()} ===\n{exchange.to_text()}")
    name = shown[0].summary() if len(exchanges) == 1 else f"exchanges ({len(exchanges)})"
    allure.attach("\n\n".join(parts), name=name, attachment_type=allure.attachment_type.TEXT)
