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

import pytest
from hypothesis import HealthCheck, settings

from conformance.contract.markers import (
    apply_item_labels,
    check_adapter_hook_marks,
    item_part,
    register_markers,
    select_parts,
)
from conformance.contract.markers import skip_reason as marker_skip_reason
from conformance.contract.requirements import PARTS
from conformance.ground import hookspecs, options, progress, redaction, stop_signal
from conformance.ground.datafiles import SUITES_DIR
from conformance.ground.exit_codes import EXIT_NOT_RUN
from conformance.ground.profile import TargetProfile
from conformance.ground.profile_loading import run_profile
from conformance.ground.secrets import (
    known_secrets,
    known_short_codes,
    register_basic_credentials,
    register_one_time_code,
    register_secret,
)
from conformance.reporting import run_plan
from conformance.reporting.summaries import TARGET_DOWN_PROPERTY, SummaryReporter, run_outcome_of
from conformance.run import embedded, report_writers, warm_workers, webhook_sink
from conformance.run.console_paths import name_tests_from_the_suites
from conformance.run.early_stop import stop_run
from conformance.run.hypothesis_storage import keep_hypothesis_storage_in_the_kit_cache
from conformance.run.preflight import preflight
from conformance.run.process_end import end_process
from conformance.run.scheduling import order_items
from conformance.run.state import STATE_KEY, SessionState
from conformance.run.worker_signals import (
    SHARED_TARGET_INPUT,
    WORK_STEALING_INPUT,
    WORKER_PIDS_INPUT,
    WorkerPids,
    record_worker_pid,
    run_stopped,
)

LEARNT_SECRETS, LEARNT_CODES = "conformance_learnt_secrets", "conformance_learnt_codes"
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
    keep_hypothesis_storage_in_the_kit_cache()  # no .hypothesis/ in the working folder
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
                config.pluginmanager.register(
                    _WorkerStop(workerinput[WORKER_PIDS_INPUT]), "conformance-worker-stop"
                )
            _activate(config, state)
        return
    if not _runs_suites(config):
        return
    _install_stop_signal(config)
    try:
        _configure_controller(config)
    except pytest.UsageError as exc:  # the summary says it, as the console does
        run_outcome_of(config).usage_error = str(exc)
        raise


def _configure_controller(config: pytest.Config) -> None:
    """Resolve the run, start what it needs, check the target, register the reporters."""
    _start_workers_warm(config)
    _balance_workers(config)
    parts = _selected_parts(config)
    run_plan.install(config, parts)  # summary.json's `plan`
    profile = run_profile(config)  # resolved once per process
    run_plan.note_profile(config, profile)
    from conformance.reporting import baseline, waivers

    waivers.install(config, profile.waivers)  # a bad waiver file stops the run before it starts
    earlier = baseline.load(profile.baseline)
    state = SessionState(profile=profile)
    config.stash[STATE_KEY] = state
    _register_secrets(profile)
    redaction.install_allure_scrubbing()
    if profile.embedded:
        embedded.start_lanes(state, embedded.sandbox_count(profile, _xdist_workers(config)))
        run_plan.note_profile(config, state.profile)  # with what the sandbox told it
    for lane in state.lanes():
        _register_secrets(lane.profile)
    summary = report_writers.start_reports(config, state.profile, earlier)
    checked = preflight(state.profile, state.exchange)
    state.exchange.reset()  # a session compares only what its own target said in it
    if checked.problem is not None:
        _stop_at_preflight(summary, checked.problem, checked.elapsed_s)
    if parts & webhook_sink.SINK_PARTS and state.profile.writes_allowed:
        problem = webhook_sink.start_sinks(state, summary.notes)
        if problem is not None:
            _stop_at_preflight(summary, *problem)
    _activate(config, state)
    if config.pluginmanager.hasplugin("xdist") and _xdist_workers(config):
        bridge = _XdistBridge(state)
        config.add_cleanup(bridge.worker_pids.close)
        config.pluginmanager.register(bridge, "conformance-xdist")
    config.pluginmanager.register(summary, "conformance-summary")


def _stop_at_preflight(summary: SummaryReporter, problem: str, elapsed_s: float) -> None:
    """End the run before any test: the target could not be tested (exit 3), said in the
    summary and on the console."""
    summary.stop_target_down(f"preflight ({elapsed_s:.1f} s): {problem}")
    summary.write(summary.build())
    summary.record_outcome()
    stop_run(f"could not run (exit {EXIT_NOT_RUN}): {problem}", EXIT_NOT_RUN)


def _start_workers_warm(config: pytest.Config) -> None:
    """Have xdist start its workers through the fork server the command line started, if
    any (``warm_workers``); by now xdist has turned ``-n`` into its worker specs."""
    specs = getattr(config.option, "tx", None)
    if specs:
        config.option.tx = warm_workers.worker_specs(list(specs))


def _balance_workers(config: pytest.Config) -> None:
    """Have xdist steal work for an idle worker from the busiest (``--dist worksteal``)
    unless the command line chose a distribution. Its default (``load``) dealt a quarter of
    each worker's share at the start, fifteen consecutive tests each at ``-n 8``: the long
    state machine then waited in one worker's queue behind the configuration checks, and ran
    alone for the last 12 s of a run against a target 50 ms away. Work stealing hands each
    worker a contiguous block (its modules' fixtures set up once, as in a serial run) and
    moves the tail of the longest queue to whoever runs out."""
    chosen = any(
        arg == "--dist" or arg.startswith("--dist=") for arg in config.invocation_params.args
    )
    if getattr(config.option, "dist", "no") == "load" and not chosen:
        config.option.dist = "worksteal"


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
    config.pluginmanager.import_plugin("conformance.run.webhook_sink")
    config.pluginmanager.import_plugin("conformance.run.report_writers")
    config.pluginmanager.import_plugin("conformance.run.answer_guard")
    from conformance.exchange import rate_limit
    from conformance.reporting import waivers

    rate_limit.install(config, state.exchange.throttle, state.profile.rate_limit)

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


def pytest_unconfigure(config: pytest.Config) -> None:
    state = config.stash.get(STATE_KEY, None)
    if state is None or hasattr(config, "workerinput"):
        return
    lanes = state.lanes()
    try:
        for lane in lanes:
            webhook_sink.stop_sink(lane)
        for lane in lanes:
            if lane.embedded is not None:
                lane.embedded.begin_stop()  # it shuts down while the report folder is scrubbed
    finally:
        try:
            report_writers.last_scrub(state.profile)
        finally:
            for lane in lanes:
                embedded.stop_lane(lane)


class _WorkerStop:
    """A worker's side of a stopped run: after each test, whether the controller stopped it
    (the target went down on another worker); if so, this worker ends too."""

    def __init__(self, folder: str) -> None:
        self.folder = folder

    @pytest.hookimpl(trylast=True)
    def pytest_runtest_teardown(self, item: pytest.Item) -> None:
        reason = run_stopped(self.folder)
        if reason is not None and not item.session.shouldstop:
            item.session.shouldstop = reason


class _XdistBridge:
    """Hands the resolved session to each xdist worker."""

    def __init__(self, state: SessionState) -> None:
        self.state = state
        self.worker_pids = WorkerPids()

    def pytest_configure_node(self, node: Any) -> None:
        joined = self.state.lane_for(node.gateway.id).worker_input()
        node.workerinput["conformance"] = {**joined, "run_sinks": self.state.run_sinks()}
        node.workerinput[WORKER_PIDS_INPUT] = str(self.worker_pids.folder)
        # one target for every worker (not a sandbox each): its configuration lock is theirs
        node.workerinput[SHARED_TARGET_INPUT] = len(self.state.lanes()) == 1
        node.workerinput[WORK_STEALING_INPUT] = node.config.option.dist == "worksteal"

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        """A worker found the target down: the others stop after their current test."""
        for name, reason in report.user_properties:
            if name == TARGET_DOWN_PROPERTY:
                self.worker_pids.announce_stop(f"conformance: {reason}")

    def pytest_testnodedown(self, node: Any, error: Any) -> None:
        """Learn the secrets a worker learnt, so the last pass over the report folder
        scrubs them from every worker's files (in memory only, like ``workerinput``)."""
        output = getattr(node, "workeroutput", None) or {}
        for secret in output.get(LEARNT_SECRETS, ()):
            register_secret(secret)
        for code in output.get(LEARNT_CODES, ()):
            register_one_time_code(code)


@pytest.hookimpl(tryfirst=True)
def pytest_sessionstart(session: pytest.Session) -> None:
    """The console names the suite's tests as the kit does, from any working folder."""
    if session.config.stash.get(STATE_KEY, None) is not None:
        name_tests_from_the_suites(session.config)


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
    # under xdist, the checks of PATCH /config on the second platform are spread among the
    # other tests (``order_items``; the long tests among the workers' shares, last of all:
    # ``scheduling.pytest_collection_modifyitems``); a serial run keeps each module's
    # tests together
    order_items(
        items,
        spread_scratch=hasattr(config, "workerinput") and state.profile.second is not None,
    )
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
