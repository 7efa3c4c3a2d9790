"""The ``conformance`` command: ``run``, ``serve`` and ``report`` (``receiver``, ``vectors``,
``certify``, ``verify`` and ``openapi`` are dispatched to modules of their own).

Exit codes of ``run``: 0 when no test failed or errored, 1 when any did, 2 for a usage
error (the output contract), 3 when the target could not be tested (preflight failed, or
mid-run it stopped answering, throttled every request, or its webhooks stopped arriving), 4
when the run did not finish (Ctrl-C, SIGTERM, a crash). The reports of a run ending 3 or 4
say INCOMPLETE, never PASSED.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from conformance.ground import options as opt
from conformance.ground import stop_signal
from conformance.ground.datafiles import SUITES_DIR
from conformance.ground.exit_codes import (
    EXIT_CODES,
    EXIT_FAILED,
    EXIT_INCOMPLETE,
    EXIT_NOT_RUN,
    EXIT_OK,
    EXIT_USAGE,
)

# Only what is light at module level: the stop signal is handled before the rest of the kit
# (pytest included) is imported, so a Ctrl-C during start-up ends the run cleanly too.
from conformance.run import client_check, embedded, run_outcome, warm_workers
from conformance.run.bytecode import use_private_bytecode_cache
from conformance.run.misspelt_flags import SuggestingParser
from conformance.run.process_end import end_process
from conformance.run.session_arguments import passed_through, session_arguments

if TYPE_CHECKING:
    from conformance.ground.profile import TargetProfile
    from conformance.reporting.summaries import RunOutcome

__all__ = ["EXIT_FAILED", "EXIT_INCOMPLETE", "EXIT_NOT_RUN", "EXIT_OK", "EXIT_USAGE", "main"]
# The plugins a run needs, by their pytest11 entry point names (how autoloading would name
# them), and ours by module, which a bare checkout without entry points can import too.
# Autoloading is off: it read every installed distribution's metadata and imported every
# installed plugin in each process (1.3 s of a worker's start-up in a venv that also holds
# schemathesis), and an unrelated installed plugin (a reorderer, a timeout) could change
# the run. Others can still be added with `-- -p NAME`.
RUN_PLUGINS = ("xdist", "allure_pytest", "hypothesispytest", "conformance.run.plugin")


def _run_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    run = sub.add_parser(
        "run",
        help="run the conformance suite (against the embedded reference sandbox by default)",
        description="Run the conformance suite. Without --target-url the embedded reference "
        "sandbox is started on a free loopback port. Arguments after `--` go to pytest.",
    )
    run.add_argument("--profile", metavar="FILE", help="TOML profile file describing the target")
    run.add_argument("--parts", metavar="A,B", help="spec parts to run (default: all eight)")
    run.add_argument("-n", dest="workers", metavar="N", help="parallel workers (pytest-xdist)")
    run.add_argument(
        opt.RECORD_EXCHANGES_FLAG,
        dest="record_exchanges",
        action="store_true",
        help="write every exchange, redacted, to REPORT_DIR/evidence/",
    )
    for setting in opt.SETTINGS:
        metavar = opt.metavar_of(setting)
        run.add_argument(
            setting.flag, dest=setting.dest, default=None, metavar=metavar, help=setting.help
        )
    run.add_argument("pytest_args", nargs=argparse.REMAINDER, help="-- then pytest arguments")


# The run's options that take a value (`-n` takes a number, never a dash).
_VALUE_FLAGS = frozenset({"--profile", "--parts", *(s.flag for s in opt.SETTINGS)})


def join_dash_values(argv: Sequence[str]) -> list[str]:
    """``--client-secret -abc`` as ``--client-secret=-abc``: argparse takes a value that
    starts with a dash for an option and refuses the flag as given no value. A value is
    joined to its flag unless it is one of the run's options (then the flag has no value,
    and argparse says so); nothing after ``--`` is touched."""
    args = list(argv)
    if not args or args[0] != "run":
        return args
    options = _VALUE_FLAGS | {"-n", "-h", "--help", opt.RECORD_EXCHANGES_FLAG}
    joined = [args[0]]
    index = 1
    while index < len(args):
        arg = args[index]
        if arg == "--":
            joined += args[index:]
            break
        following = args[index + 1] if index + 1 < len(args) else None
        if (
            arg in _VALUE_FLAGS
            and following is not None
            and following.startswith("-")
            and following != "--"
            and following.split("=", 1)[0] not in options
        ):
            joined.append(f"{arg}={following}")
            index += 2
            continue
        joined.append(arg)
        index += 1
    return joined


def build_parser() -> argparse.ArgumentParser:
    parser = SuggestingParser(  # a misspelt flag gets "did you mean"
        prog="conformance",
        description="Conformance kit for the Global Payments Service Interface.",
    )
    # the top parser reports unknown flags (with a suggestion); subcommands stay plain
    sub = parser.add_subparsers(dest="command", required=True, parser_class=argparse.ArgumentParser)
    _run_parser(sub)
    serve = sub.add_parser(
        "serve",
        help="start the reference sandbox and print its credentials as one JSON line",
        add_help=False,
    )
    serve.add_argument("serve_args", nargs=argparse.REMAINDER)
    for name, text in (
        ("certify", "run the suite and write a signed certification bundle"),
        ("verify", "check a certification bundle offline against the certifier's public key"),
        ("openapi", "write the OpenAPI 3.1 document of the interface (from the kit's schemas)"),
        ("receiver", "check a platform's webhook endpoint as the service delivers to it"),
        ("vectors", "write signed webhook test vectors for a platform's own verifier tests"),
    ):
        other = sub.add_parser(name, help=text, add_help=False)
        other.add_argument("other_args", nargs=argparse.REMAINDER)
    report = sub.add_parser("report", help="turn allure-results into the HTML report")
    report.add_argument("--report-dir", default="reports", help="the run's report folder")
    report.add_argument("--output", help="where to write the HTML (default: DIR/allure-report)")
    report.add_argument(
        "--open",
        action="store_true",
        help="then open it in the browser (a --multi-file report is served on 127.0.0.1 "
        "until Ctrl-C)",
    )
    files = report.add_mutually_exclusive_group()
    files.add_argument(
        "--single-file",
        dest="single_file",
        action="store_true",
        default=True,
        help="one self-contained index.html that opens from disk (the default)",
    )
    files.add_argument(
        "--multi-file",
        dest="single_file",
        action="store_false",
        help="Allure's folder of files, which a browser loads only when served (see --open)",
    )
    return parser


def suite_paths(parts: str | None) -> list[str]:
    """The folders to collect: only the chosen parts' (collecting and importing the others,
    then deselecting them, was a fifth of a one-part run's CPU). An unknown part keeps the
    whole folder, so that the plugin's usage error names it."""
    from conformance.contract.requirements import PARTS

    chosen = list(dict.fromkeys(p.strip() for p in (parts or "").split(",") if p.strip()))
    if not chosen or not set(chosen) <= set(PARTS):
        return [str(SUITES_DIR)]
    return [str(SUITES_DIR / part) for part in chosen]


def pytest_arguments(ns: argparse.Namespace, report_dir: Path | None = None) -> list[str]:
    """The pytest command line for a ``conformance run`` writing to ``report_dir`` (by
    default the folder the command line and the environment name)."""
    report_dir = report_dir or _report_dir(ns, None)
    args = [
        *suite_paths(ns.parts),
        # node ids as the kit names its tests (<part>/<module>.py::<name>) from any working
        # folder: an installed kit's ran ../../lib/python3.x/site-packages/... otherwise
        f"--rootdir={SUITES_DIR}",
        "--no-header",  # pytest's header names the rootdir (site-packages) and its plugins
        *session_arguments(report_dir, RUN_PLUGINS),
        f"{opt.REPORT_DIR.flag}={report_dir}",
    ]
    if ns.profile:
        args.append(f"{opt.PROFILE_FLAG}={ns.profile}")
    if ns.parts:
        args.append(f"{opt.PARTS_FLAG}={ns.parts}")
    if ns.workers:
        args += ["-n", str(ns.workers)]
    if ns.record_exchanges:
        args.append(opt.RECORD_EXCHANGES_FLAG)
    for setting in opt.SETTINGS:
        value = getattr(ns, setting.dest)
        if value is not None and setting is not opt.REPORT_DIR:
            args.append(f"{setting.flag}={value}")
    extra = passed_through(ns.pytest_args)
    if not any(arg.startswith(("-v", "--verbose", "--tb")) for arg in extra):
        args.append("--tb=no")  # tracebacks and exchanges are in the reports; -v shows them
    return args + extra


class _RunOptions:
    """The run's own flags, answered the way ``load_profile`` asks pytest's config."""

    def __init__(self, ns: argparse.Namespace) -> None:
        self._ns = ns

    def getoption(self, name: str) -> Any:
        return self._ns.profile if name == "conformance_profile" else getattr(self._ns, name, None)


def _command_line_profile(ns: argparse.Namespace) -> TargetProfile | None:
    """The profile the command line gives, or None where it cannot be resolved (the plugin
    then reports it, as a usage error)."""
    from conformance.ground.profile_loading import load_profile

    try:
        return load_profile(_RunOptions(ns))  # type: ignore[arg-type]
    except Exception:
        return None


def _handed_over(
    ns: argparse.Namespace, profile: TargetProfile | None, report_dir: Path
) -> list[object]:
    """The plugin objects that hand the resolved profile to the run in this process (none
    when pytest arguments after ``--`` may set a setting: the plugin resolves it then)."""
    from conformance.ground.profile_loading import ResolvedProfile

    flags = (opt.PROFILE_FLAG, *(setting.flag for setting in opt.SETTINGS))
    extra = [arg for arg in ns.pytest_args if arg != "--"]
    if profile is None or any(arg.startswith(flags) for arg in extra):
        return []
    # the reports go where the command line claimed the folder (and pointed JUnit, Allure)
    return [ResolvedProfile(dataclasses.replace(profile, report_dir=str(report_dir)))]


def _launch_sandbox_early(ns: argparse.Namespace, profile: TargetProfile | None = None) -> None:
    """Start the embedded sandbox now, so that its start-up overlaps pytest's imports (half a
    second of every run). The plugin takes this sandbox only if its profile asks for the same
    one (``embedded.take_early``); a profile that cannot be resolved here is left for the
    plugin to report, and settings given after ``--`` may make it start its own.
    """
    profile = profile or _command_line_profile(ns)
    if profile is not None and profile.embedded:
        embedded.launch_early(
            embedded.sandbox_args(profile),
            count=embedded.sandbox_count(profile, _worker_count(ns.workers)),
        )


def _resolve_auto_workers(ns: argparse.Namespace, profile: TargetProfile | None) -> None:
    """``-n auto``: a worker count that suits the target (its measured latency, not only
    the CPUs: ``worker_count``), said on the console. A profile that cannot be resolved
    here leaves ``auto`` to xdist (the plugin then reports the profile's problem)."""
    from conformance.run.worker_count import AUTO_WORDS, auto_workers

    if ns.workers not in AUTO_WORDS:
        return
    profile = profile or _command_line_profile(ns)
    if profile is None:
        return
    chosen = auto_workers(profile)
    ns.workers = str(chosen.count)
    print(f"conformance: -n auto: {chosen.reason}", file=sys.stderr)


def _worker_count(workers: str | None) -> int:
    """The number of xdist workers ``-n`` asks for (``auto``/``logical``: about the CPUs)."""
    if not workers:
        return 0
    return int(workers) if workers.isdigit() else embedded.usable_cpus()


def command_run(
    ns: argparse.Namespace, profile: TargetProfile | None = None, report_dir: Path | None = None
) -> int:
    """Run the suite in this process, writing to ``report_dir`` (``_report_dir`` by default);
    the exit code, with the reports saying the same.

    However the run ends (a verdict, a usage error, Ctrl-C or SIGTERM at any moment, a
    crash), the summary in the report folder is this run's and agrees with the exit code.
    """
    import pytest

    from conformance.reporting.summaries import RunOutcome

    outcome = run_outcome.RUN.outcome = RunOutcome()  # handed to the session as a plugin
    crash: BaseException | None = None
    code: int = pytest.ExitCode.INTERRUPTED
    report_dir = report_dir or _report_dir(ns, profile)
    try:
        use_private_bytecode_cache()  # workers and the embedded sandbox inherit it
        _resolve_auto_workers(ns, profile)
        _launch_sandbox_early(ns, profile)
        if ns.workers and ns.workers != "0":
            warm_workers.start()  # after the sandbox's launch: it overlaps the imports
        try:
            code = pytest.main(
                pytest_arguments(ns, report_dir),
                plugins=[outcome, *_handed_over(ns, profile, report_dir)],
            )
        finally:
            embedded.cancel_early()  # pytest stopped before the plugin took it
            warm_workers.stop()
    except KeyboardInterrupt:  # before pytest's session, or after it said its verdict
        pass
    except Exception as exc:  # a crash of the kit: the reports say INCOMPLETE
        crash = exc
    return session_exit_code(code, crash, report_dir, outcome)


def session_exit_code(
    code: int, crash: BaseException | None, report_dir: Path, outcome: RunOutcome
) -> int:
    """The exit code of a session that ended with pytest's ``code`` (or ``crash``) and
    concluded ``outcome``, the reports in ``report_dir`` saying the same (``run`` and
    ``receiver`` share it)."""
    import pytest

    if stop_signal.stopping() or crash is not None:
        return run_outcome.end_abnormally(report_dir, crash, outcome)
    if code == pytest.ExitCode.USAGE_ERROR:
        run_outcome.write_verdict_only(report_dir, "usage_error", outcome.usage_error)
        return EXIT_USAGE
    if code == pytest.ExitCode.NO_TESTS_COLLECTED:
        print("conformance: no test was selected; check --parts and -k/-m", file=sys.stderr)
        return EXIT_USAGE
    if outcome.verdict in ("not_run", "incomplete"):
        from conformance.ground.redaction import scrub

        what = "could not run" if outcome.verdict == "not_run" else "INCOMPLETE"
        reason = scrub(outcome.reason or "the run did not finish")
        if not reason.startswith("preflight"):  # the preflight has said it already
            print(f"conformance: {what} (exit {EXIT_CODES[outcome.verdict]}): {reason}",
                  file=sys.stderr)  # fmt: skip
        return EXIT_CODES[outcome.verdict]
    if outcome.verdict == "no_tests":
        print("conformance: no test ran (nothing selected, or every test skipped); "
              "summary.md says why each was skipped", file=sys.stderr)  # fmt: skip
        return EXIT_USAGE
    if outcome.verdict == "failed" or code == pytest.ExitCode.TESTS_FAILED:
        return EXIT_FAILED  # also an expired waiver, with every test passing
    if code == pytest.ExitCode.OK and outcome.reporter is not None:
        return EXIT_OK
    run_outcome.end_abnormally(report_dir, None, outcome)  # pytest ended without a verdict
    return EXIT_INCOMPLETE


def _report_dir(ns: argparse.Namespace, profile: TargetProfile | None) -> Path:
    """The run's report folder: ``--report-dir``, else its variable, else the profile file's
    ``report_dir``, else ``reports`` (the order in which ``profile`` resolved it). Without a
    profile (one the plugin will report as a usage error), the file is not read."""
    if profile is not None:
        return Path(profile.report_dir)
    return Path(ns.conformance_report_dir or os.environ.get(opt.REPORT_DIR.env) or "reports")


def run_report_dir(ns: argparse.Namespace) -> Path:
    """The folder ``conformance run`` with the parsed command line ``ns`` writes to."""
    return _report_dir(ns, _command_line_profile(ns))


def _baseline_of(ns: argparse.Namespace, profile: TargetProfile | None) -> str | None:
    """The baseline the run will read (a flag, its variable, or the profile file's key)."""
    if profile is not None:
        return profile.baseline
    return getattr(ns, opt.BASELINE.dest, None) or os.environ.get(opt.BASELINE_ENV) or None


def run_and_report(ns: argparse.Namespace) -> int:
    """``conformance run``: claim the report folder, run, and list what this run wrote."""
    from conformance.reporting.report_paths import render_locations

    opt.use_run_spelling()  # usage errors name --parts and --profile, as typed here
    run_outcome.RUN.report_dir, run_outcome.RUN.code = None, None
    profile = _command_line_profile(ns)  # resolved once here, for the claim and the sandbox
    report_dir = _report_dir(ns, profile)
    if not run_outcome.claim(report_dir, _baseline_of(ns, profile)):
        print(f"conformance: exit {EXIT_USAGE}")
        return EXIT_USAGE
    run_outcome.RUN.report_dir = report_dir
    run_outcome.write_verdict_only(report_dir, "incomplete", None)
    # the verdict is said: a stop now ends with this code
    run_outcome.RUN.code = command_run(ns, profile, report_dir)
    print(f"{render_locations(report_dir)}\nconformance: exit {run_outcome.RUN.code}")
    return run_outcome.RUN.code


def usage_error_of_run(argv: Sequence[str], code: int) -> int:
    """A ``run`` command line that does not parse still owns its report folder: the earlier
    run's reports are removed and the summary says it did not run."""
    report_dir = run_outcome.report_dir_in(argv[1:])
    if run_outcome.claim(report_dir, None):
        run_outcome.write_verdict_only(
            report_dir, "usage_error", "the command line did not parse (see above)"
        )
    return code


# The reference's command reads its name from this variable (`reference/server/cli.py`).
REFERENCE_PROG_ENV = "REFERENCE_PROG"


def command_serve(args: Sequence[str]) -> int:
    """Replace this process with the reference sandbox (the suite never imports it), whose
    help and usage errors then name the command typed: `conformance serve`. With
    ``--check-clients DIR`` the sandbox runs as a child instead, judging the requests of a
    platform's client, and the reports are written to DIR once it stops."""
    env = {**os.environ, REFERENCE_PROG_ENV: "conformance"}
    folder = client_check.check_folder(args)
    if folder is not None:
        return client_check.serve_checking_clients(args, folder, env)
    command = [sys.executable, "-m", "reference", "serve", *args]
    sys.stdout.flush()
    os.execve(sys.executable, command, env)
    return EXIT_FAILED  # not reached


def command_report(
    report_dir: str, output: str | None, *, open_it: bool = False, single_file: bool = True
) -> int:
    """Build the HTML report offline with the pinned generator (``allure_report.py``)."""
    from conformance.reporting.allure_report import build_report, open_report

    code = build_report(report_dir, output, single_file=single_file)
    if code != EXIT_OK or not open_it:
        return code
    folder = Path(output) if output else Path(report_dir) / "allure-report"
    return open_report(folder, single_file=single_file)


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0] == "serve":
        return command_serve(argv[1:])
    if argv and argv[0] == "openapi":
        from conformance.contract import openapi

        return openapi.main(argv[1:])
    if argv and argv[0] == "receiver":
        from conformance.run import receiver_command

        return receiver_command.main(argv[1:])
    if argv and argv[0] == "vectors":
        from conformance.run import vectors_command

        return vectors_command.main(argv[1:])
    if argv and argv[0] in ("certify", "verify"):
        from conformance.run import certify

        command = certify.main_certify if argv[0] == "certify" else certify.main_verify
        return command(argv[1:])
    parser = build_parser()
    try:
        ns = parser.parse_args(join_dash_values(argv))
    except SystemExit as exc:  # argparse exits 2 on usage errors, 0 on --help
        code = int(exc.code or 0)
        if code and argv and argv[0] == "run":
            return usage_error_of_run(argv, code)
        return code
    if ns.command == "run":
        return run_and_report(ns)
    if ns.command == "report":
        return command_report(ns.report_dir, ns.output, open_it=ns.open, single_file=ns.single_file)
    parser.error(f"unknown command {ns.command}")
    return EXIT_USAGE


def entry() -> None:
    """The console command: ``main``, then the process ends at once with its exit code.

    The stop signal is handled from the first moment (``stop_signal``): a Ctrl-C or SIGTERM
    anywhere ends the run with exit 4 and reports that say INCOMPLETE, without a traceback;
    a second one stops at once. By the end every report is written and closed, the sandbox
    has stopped and pytest has run its cleanups; what is left is the interpreter freeing
    every object of the run, module by module (0.3 s after a full run), which is skipped."""
    stop_signal.install()
    argv = sys.argv[1:]
    try:
        code = main(argv)
    except KeyboardInterrupt:  # before the run claimed its folder, or outside a run
        code = run_outcome.stopped_outside_a_run(argv)
    end_process(code)


if __name__ == "__main__":
    entry()
