"""The pytest plugin (``pytest11`` entry point ``conformance``).

The plugin is active when the run collects the conformance suites. The controlling process
then resolves the target profile, starts the embedded reference sandbox when no target is
given, starts the webhook sink and registers it, and writes the summary; xdist workers get
the resolved profile and the sink's address through ``workerinput``.

Under xdist the embedded default starts a sandbox per worker (``embedded.sandbox_count``),
each with its own sink: a lane (``SessionState.lane_for``). A worker then meets what a
serial run meets, a target and a sink of its own, instead of waiting behind the other
workers' requests at one sandbox's event loop. The controller starts and stops them all and
knows every lane's secrets, so its reports scrub them all.
"""

from __future__ import annotations

import importlib
import os
import signal
import sys
import threading
from pathlib import Path
from typing import Any

import allure
import pytest
from hypothesis import HealthCheck, settings

from conformance.contract.markers import (
    REQUESTS_PROPERTY,
    apply_item_labels,
    check_adapter_hook_marks,
    item_part,
    register_markers,
    select_parts,
)
from conformance.contract.markers import skip_reason as marker_skip_reason
from conformance.contract.requirements import PARTS, default_catalogue
from conformance.exchange.client import TARGET_HEALTH
from conformance.ground import hookspecs, options, progress, redaction, stop_signal
from conformance.ground.datafiles import SUITES_DIR
from conformance.ground.exit_codes import EXIT_NOT_RUN
from conformance.ground.locks import forget_platform_locks
from conformance.ground.profile import TargetProfile, load_profile
from conformance.ground.secrets import (
    known_secrets,
    known_short_codes,
    register_basic_credentials,
    register_one_time_code,
    register_secret,
)
from conformance.reporting import run_plan
from conformance.reporting.exchange_evidence import record as record_exchanges
from conformance.reporting.exchange_evidence import start as start_evidence
from conformance.reporting.summaries import TARGET_DOWN_PROPERTY, SummaryReporter, last_outcome
from conformance.run import embedded, warm_workers
from conformance.run.embedded import EmbeddedStartError, wallet_settings
from conformance.run.preflight import preflight
from conformance.run.process_end import end_process
from conformance.run.scheduling import order_items
from conformance.run.state import STATE_KEY, SessionState
from conformance.run.target_client import plumbing_client
from conformance.run.worker_signals import WORKER_PIDS_INPUT, WorkerPids, record_worker_pid

LEARNT_SECRETS, LEARNT_CODES = "conformance_learnt_secrets", "conformance_learnt_codes"
MAX_ATTACHED_EXCHANGES = 40
SINK_PARTS = frozenset({"webhooks", "transitions"})
EMBEDDED_STOP_GRACE_S = 0.05
# One failure per test, so its message is the conformance clause, not an exception group.
settings.register_profile(
    "conformance-base",
    deadline=None,
    report_multiple_bugs=False,
    suppress_health_check=[HealthCheck.too_slow],
)
_BASE = settings.get_profile("conformance-base")
settings.register_profile("dev", _BASE, max_examples=15)
settings.register_profile("ci", _BASE, max_examples=25, derandomize=True, print_blob=True)
settings.register_profile("thorough", _BASE, max_examples=200)


def pytest_addoption(parser: pytest.Parser) -> None:
    options.add_options(parser)


def pytest_addhooks(pluginmanager: pytest.PytestPluginManager) -> None:
    pluginmanager.add_hookspecs(hookspecs)


def _runs_suites(config: pytest.Config) -> bool:
    """Whether this run collects the conformance suites (plain project tests do not)."""
    if config.getoption("conformance_parts"):
        return True
    for arg in config.args:
        if arg.startswith("conformance.suites"):
            return True
        path = Path(arg.split("::", 1)[0])
        if not path.is_absolute():
            path = Path(config.invocation_params.dir) / path
        try:
            resolved = path.resolve()
        except OSError:
            continue
        if resolved == SUITES_DIR or SUITES_DIR in resolved.parents:
            return True
    return False


def _selected_parts(config: pytest.Config) -> frozenset[str]:
    raw = config.getoption("conformance_parts") or os.environ.get(options.PARTS_ENV) or ""
    parts = frozenset(p.strip() for p in raw.split(",") if p.strip())
    unknown = sorted(parts - set(PARTS))
    if unknown:
        raise pytest.UsageError(
            f"conformance: {options.typed(options.PARTS_FLAG)}={raw!r}: unknown part(s) "
            f"{', '.join(unknown)}. "
            f"Use any of: {', '.join(PARTS)}."
        )
    return parts or frozenset(PARTS)


@pytest.hookimpl(tryfirst=True)
def pytest_configure(config: pytest.Config) -> None:
    register_markers(config)
    workerinput: dict[str, Any] | None = getattr(config, "workerinput", None)
    if workerinput is not None:
        # the controller emptied the Allure folder before any worker started; a worker that
        # replaces a crashed one, emptying it again, lost every result written so far
        config.option.clean_alluredir = False
        data = workerinput.get("conformance")
        if data is not None:
            state = SessionState.from_worker_input(data)
            config.stash[STATE_KEY] = state
            run_plan.install(config)  # counts what this worker deselects
            config.add_cleanup(_end_worker_process)  # among the first added: runs last
            _install_stop_signal(config)
            if WORKER_PIDS_INPUT in workerinput:
                pid_file = record_worker_pid(
                    workerinput[WORKER_PIDS_INPUT], workerinput["workerid"]
                )
                config.add_cleanup(lambda: pid_file.unlink(missing_ok=True))
            _activate(config, state)
        return
    if not _runs_suites(config):
        return
    _install_stop_signal(config)
    try:
        _configure_controller(config)
    except pytest.UsageError as exc:  # the summary says it, as the console does
        last_outcome().usage_error = str(exc)
        raise


def _configure_controller(config: pytest.Config) -> None:
    """Resolve the run, start what it needs, check the target, register the reporters."""
    _start_workers_warm(config)
    parts = _selected_parts(config)
    run_plan.install(config, parts)  # summary.json's `plan`
    profile = load_profile(config)
    run_plan.note_profile(config, profile)
    from conformance.reporting import baseline, waivers

    waivers.install(config, profile.waivers)  # a bad waiver file stops the run before it starts
    earlier = baseline.load(profile.baseline)
    state = SessionState(profile=profile)
    config.stash[STATE_KEY] = state
    _register_secrets(profile)
    redaction.install_allure_scrubbing()
    if profile.embedded:
        _start_embedded(state, embedded.sandbox_count(profile, _xdist_workers(config)))
    for lane in state.lanes():
        _register_secrets(lane.profile)
    summary = SummaryReporter(
        Path(state.profile.report_dir), default_catalogue(), _target_view(state.profile)
    )
    summary.baseline = earlier
    start_evidence(config, state.profile)
    checked = preflight(state.profile)
    TARGET_HEALTH.reset()
    if checked.problem is not None:
        _stop_at_preflight(summary, checked.problem, checked.elapsed_s)
    if parts & SINK_PARTS and state.profile.writes_allowed:
        for lane in state.lanes():
            _start_sink(lane)
        _check_sinks(state, summary)
    _activate(config, state)
    if config.pluginmanager.hasplugin("xdist") and _xdist_workers(config):
        bridge = _XdistBridge(state)
        config.add_cleanup(bridge.worker_pids.close)
        config.pluginmanager.register(bridge, "conformance-xdist")
    config.pluginmanager.register(summary, "conformance-summary")


def _check_sinks(state: SessionState, summary: SummaryReporter) -> None:
    """Prove that the target's deliveries reach each lane's sink (``sink_check``): a run
    whose webhooks cannot arrive ends here, as could not run."""
    from conformance.run.sink_check import check_sink

    for lane in state.lanes():
        checked = check_sink(lane)
        if checked.note is not None and checked.note not in summary.notes:
            summary.notes.append(checked.note)
            print(redaction.scrub(f"conformance: {checked.note}"), file=sys.stderr)
        if checked.problem is not None:
            _stop_at_preflight(summary, checked.problem, checked.elapsed_s)


def _stop_at_preflight(summary: SummaryReporter, problem: str, elapsed_s: float) -> None:
    """End the run before any test: the target could not be tested (exit 3), said in the
    summary and on the console."""
    summary.stop_target_down(f"preflight ({elapsed_s:.1f} s): {problem}")
    summary.write(summary.build())
    summary.record_outcome()
    pytest.exit(f"conformance: could not run (exit {EXIT_NOT_RUN}): {problem}", EXIT_NOT_RUN)


def _start_workers_warm(config: pytest.Config) -> None:
    """Have xdist start its workers through the fork server the command line started, if
    any (``warm_workers``); by now xdist has turned ``-n`` into its worker specs."""
    specs = getattr(config.option, "tx", None)
    if specs:
        config.option.tx = warm_workers.worker_specs(list(specs))


def _xdist_workers(config: pytest.Config) -> int:
    """How many xdist workers this run starts (0 when its tests run in this process)."""
    if getattr(config.option, "dist", "no") == "no":
        return 0
    return len(getattr(config.option, "tx", None) or ())


def _end_worker_process() -> None:
    """End an xdist worker of a conformance run once pytest has cleaned up after it.

    The controller waits for every worker process to exit before it writes the reports, and
    the interpreter's teardown of a worker (freeing the whole heap, closing execnet) took
    0.3 s of that wait. Its results, learnt secrets included, reached the controller with
    ``workerfinished``, so nothing is lost."""
    end_process(0)


def _register_secrets(profile: TargetProfile) -> None:
    """Every secret of the profile, and the Basic token each credential pair travels in."""
    for credentials in (
        profile.primary if profile.client_id and profile.client_secret else None,
        profile.second,
        profile.production,
    ):
        if credentials is not None:
            register_basic_credentials(credentials.client_id, credentials.client_secret)


def _install_stop_signal(config: pytest.Config) -> None:
    """SIGINT and SIGTERM stop the run (``stop_signal``): reports say INCOMPLETE, the
    endpoint is put back; the handlers this process had come back when pytest ends."""
    if threading.current_thread() is not threading.main_thread():
        return
    wanted = ("SIGINT", "SIGTERM", stop_signal.FORWARDED_SIGNAL)
    names = [name for name in wanted if hasattr(signal, name)]
    previous = {name: signal.getsignal(getattr(signal, name)) for name in names}
    stop_signal.install()

    def restore() -> None:
        for name, handler in previous.items():
            if handler is not None:
                signal.signal(getattr(signal, name), handler)

    config.add_cleanup(restore)


def _activate(config: pytest.Config, state: SessionState) -> None:
    """Register what every process of an active run needs."""
    _register_secrets(state.profile)
    redaction.install_allure_scrubbing()
    config.pluginmanager.import_plugin("conformance.run.interruption")
    config.pluginmanager.import_plugin("conformance.run.fixtures")
    config.pluginmanager.import_plugin("conformance.run.answer_guard")
    from conformance.exchange import rate_limit
    from conformance.reporting import waivers

    rate_limit.install(config, state.profile.rate_limit)

    waivers.install(config, state.profile.waivers)
    config.pluginmanager.import_plugin("conformance.run.scheduling")
    progress.install(config)
    if state.profile.adapter:
        _register_adapter(config, state.profile.adapter)
    if config.getoption("hypothesis_profile", None) is None:
        settings.load_profile("ci" if os.environ.get("CI") else "dev")


def _register_adapter(config: pytest.Config, name: str) -> None:
    """Register the adapter module, whose ``pytest_conformance_*`` functions implement hooks.
    ``name`` is a module to import, or the path of its ``.py`` file."""
    try:
        module = _import_adapter(name)
    except (ImportError, OSError, SyntaxError) as exc:
        raise pytest.UsageError(
            f"conformance: {options.ADAPTER.flag}={name!r}: cannot import ({exc}). "
            "Give an importable module implementing the adapter hooks, or its .py file."
        ) from exc
    found = [hook for hook in hookspecs.ADAPTER_HOOKS if callable(getattr(module, hook, None))]
    if not found:
        raise pytest.UsageError(
            f"conformance: {options.ADAPTER.flag}={name!r}: the module implements none of the "
            f"adapter hooks ({', '.join(hookspecs.ADAPTER_HOOKS)})."
        )
    if not config.pluginmanager.is_registered(module):
        config.pluginmanager.register(module, "conformance-adapter")


def _import_adapter(name: str) -> Any:
    if not name.endswith(".py"):
        return importlib.import_module(name)
    from importlib.util import module_from_spec, spec_from_file_location

    path = Path(name)
    spec = spec_from_file_location(f"conformance_adapter_{path.stem}", path)
    if spec is None or spec.loader is None or not path.is_file():
        raise ImportError(f"no such file: {path}")
    module = module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def _target_view(profile: TargetProfile) -> dict[str, Any]:
    """The target as the summary names it, with the profile settings the run took on trust
    (the target does not show them: the summary's hints compare its failures with them)."""
    return {
        "base_url": profile.base_url,
        "environment": profile.environment,
        "regulated": profile.regulated,
        "skip_verification_paperwork": profile.skip_verification_paperwork,
        "features": list(profile.features),
    }


def _start_embedded(state: SessionState, count: int) -> None:
    """Start the embedded sandbox, and ``count - 1`` more for the xdist workers (each a
    lane of its own: ``SessionState.lane_for``); the profile points at the first."""
    profile = state.profile
    args = embedded.sandbox_args(
        profile.regulated, profile.skip_verification_paperwork, profile.embedded_args
    )
    launches: list[embedded.EmbeddedLaunch] = []
    try:
        # all started before any is waited for: their start-ups overlap
        for _ in range(count):
            launches.append(embedded.take_early(args) or embedded.launch_embedded(args))
        sandboxes = [launch.ready() for launch in launches]
    except BaseException as exc:  # an interrupt too: no sandbox is left running
        for launch in launches:
            launch.cancel()
        if isinstance(exc, EmbeddedStartError | OSError):
            raise pytest.UsageError(f"conformance: {exc}") from exc
        raise
    finally:
        embedded.cancel_early()  # any the command line started beyond these
    state.embedded = sandboxes[0]
    state.profile = _embedded_profile(profile, sandboxes[0].info)
    state.other_lanes = [
        SessionState(profile=_embedded_profile(profile, sandbox.info), embedded=sandbox)
        for sandbox in sandboxes[1:]
    ]


def _embedded_profile(profile: TargetProfile, info: dict[str, Any]) -> TargetProfile:
    """``profile`` pointed at the embedded sandbox that printed ``info``."""
    return profile.with_target(
        info["base_url"],
        client_id=info["client_id"],
        client_secret=info["client_secret"],
        second_client_id=info.get("second_client_id"),
        second_client_secret=info.get("second_client_secret"),
        production_client_id=info.get("production_client_id"),
        production_client_secret=info.get("production_client_secret"),
        webhook_public_key=profile.webhook_public_key or info.get("webhook_public_key_pem"),
        # the sandbox names the adapter module that drives its hidden triggers
        adapter=profile.adapter or info.get("adapter"),
        # and the features it has enabled, on top of any the profile declares
        features=tuple(dict.fromkeys([*profile.features, *info.get("features", ())])),
        **wallet_settings(info, profile),
    )


def _start_sink(state: SessionState) -> None:
    from conformance.webhooks.sink import EndpointRegistration, SinkServer

    profile = state.profile
    server = SinkServer(
        host=profile.sink_host, https=profile.sink_https, public_url=profile.sink_public_url
    )
    server.start()
    state.sink_server = server
    state.sink_url = server.url
    state.sink_control_url = server.control_url
    plumbing = plumbing_client(profile)

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


@pytest.hookimpl(tryfirst=True)
def pytest_sessionstart(session: pytest.Session) -> None:
    if session.config.stash.get(STATE_KEY, None) is not None:
        redaction.install_terminal_scrubbing(session.config)


def pytest_unconfigure(config: pytest.Config) -> None:
    state = config.stash.get(STATE_KEY, None)
    if state is None or hasattr(config, "workerinput"):
        return
    lanes = state.lanes()
    try:
        for lane in lanes:
            _stop_sink(lane)
        for lane in lanes:
            if lane.embedded is not None:
                lane.embedded.begin_stop()  # it shuts down while the report folder is scrubbed
    finally:
        try:
            # the last pass: whatever any writer left in the report folder, scrubbed
            redaction.scrub_tree(Path(state.profile.report_dir))
        finally:
            for lane in lanes:
                _stop_embedded(lane)


def _stop_sink(lane: SessionState) -> None:
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


def _stop_embedded(lane: SessionState) -> None:
    """Stop an embedded sandbox at the end of the run, and drop its lock files."""
    if lane.embedded is None:
        return
    profile = lane.profile
    if profile.base_url is not None:
        ids = [c.client_id for c in (profile.primary, profile.second) if c]
        forget_platform_locks(profile.base_url, *ids)
    # the run is done with it and its state is thrown away: what is left of its graceful
    # shutdown (uvicorn lingers 0.1 s for open connections) is cut short; its database
    # commits are already durable
    lane.embedded.stop(grace_s=EMBEDDED_STOP_GRACE_S)


class _XdistBridge:
    """Hands the resolved session to each xdist worker."""

    def __init__(self, state: SessionState) -> None:
        self.state = state
        self.worker_pids = WorkerPids()

    def pytest_configure_node(self, node: Any) -> None:
        node.workerinput["conformance"] = self.state.lane_for(node.gateway.id).worker_input()
        node.workerinput[WORKER_PIDS_INPUT] = str(self.worker_pids.folder)

    def pytest_testnodedown(self, node: Any, error: Any) -> None:
        """Learn the secrets a worker learnt, so the last pass over the report folder
        scrubs them from every worker's files (in memory only, like ``workerinput``)."""
        output = getattr(node, "workeroutput", None) or {}
        for secret in output.get(LEARNT_SECRETS, ()):
            register_secret(secret)
        for code in output.get(LEARNT_CODES, ()):
            register_one_time_code(code)


@pytest.hookimpl(tryfirst=True)
def pytest_sessionfinish(session: pytest.Session) -> None:
    """An xdist worker hands the secrets it learnt back to the controller."""
    output = getattr(session.config, "workeroutput", None)
    if output is not None and session.config.stash.get(STATE_KEY, None) is not None:
        output[LEARNT_SECRETS] = list(known_secrets())
        output[LEARNT_CODES] = sorted(known_short_codes())


def pytest_collection_modifyitems(
    session: pytest.Session, config: pytest.Config, items: list[pytest.Item]
) -> None:
    state = config.stash.get(STATE_KEY, None)
    if state is None:
        return
    check_adapter_hook_marks(items)
    select_parts(items, _selected_parts(config), config)
    order_items(items)
    for item in items:
        part = item_part(item)
        if part is not None:
            apply_item_labels(item, part)


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    state = item.config.stash.get(STATE_KEY, None)
    if state is None or item_part(item) is None:
        return
    state.log.take()  # evidence belongs to one test
    reason = marker_skip_reason(item, state.profile, item.config)
    if reason:
        pytest.skip(reason)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]):  # type: ignore[no-untyped-def]
    outcome = yield
    state = item.config.stash.get(STATE_KEY, None)
    if state is None or item_part(item) is None:
        return
    report: pytest.TestReport = outcome.get_result()
    if TARGET_HEALTH.down is not None:
        report.user_properties.append((TARGET_DOWN_PROPERTY, TARGET_HEALTH.down))
        item.session.shouldstop = f"conformance: {TARGET_HEALTH.down}"
    if call.when == "call" or (call.when == "setup" and not report.passed):
        exchanges = state.log.take()
        record_exchanges(item.config, state.profile.report_dir, report.nodeid, exchanges)
        report.user_properties.append((REQUESTS_PROPERTY, len(exchanges)))
        _attach_exchanges(exchanges)
        if report.failed and exchanges:
            shown = exchanges[-5:]
            text = "\n\n".join(e.to_text() for e in shown)
            report.sections.append(
                (f"conformance exchanges (last {len(shown)} of {len(exchanges)})", text)
            )
    redaction.scrub_report(report)


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
