"""``conformance receiver``: act as the service toward a platform's webhook endpoint.

``conformance receiver --url URL --signing-key PEM`` delivers signed events (and deliveries
whose signature fails) to the endpoint and writes the same reports, with the same exit codes
and guarantees, as ``conformance run``: 0 every case passed, 1 a case failed, 2 a usage
error, 3 the endpoint could not be tested (no answer within the delivery deadline), 4 the
check did not finish. The platform's test environment must trust the public key of the
signing key: ``--print-public-key`` prints it; ``--new-key`` makes a missing key file.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from conformance.ground import options as opt
from conformance.ground.datafiles import RECEIVER_SUITE_DIR
from conformance.ground.exit_codes import EXIT_OK, EXIT_USAGE
from conformance.run import run_outcome
from conformance.run.session_arguments import passed_through, session_arguments

if TYPE_CHECKING:  # the command imports the rest only once it knows it will check
    from conformance.run.receiver_check import ReceiverProfile
    from conformance.webhooks.delivering.signing_key import SigningKey

__all__ = ["DEFAULT_DELIVERY_TIMEOUT", "build_parser", "main"]

DEFAULT_DELIVERY_TIMEOUT = 10.0
# the plugins a receiver check needs (autoloading is off, as in `run`): Allure, ours, and
# xdist, whose hooks the shared summary reporter implements (the check runs serially: its
# cases are deliveries in an order)
RECEIVER_PLUGINS = ("xdist", "allure_pytest", "conformance.run.receiver_check")


class _UsageError(Exception):
    """A setting the check cannot run with: the message names it, its value and the fix."""


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="conformance receiver",
        description="Check a platform's webhook endpoint as the service reaches it: signed "
        "events it must acknowledge (2xx) and deliveries whose signature fails, which it must "
        "refuse. Arguments after `--` go to pytest.",
    )
    parser.add_argument("--url", help="the platform's webhook endpoint (http or https)")
    parser.add_argument(
        "--signing-key",
        metavar="PEM",
        help="the EC P-256 private key (PEM) deliveries are signed with; the endpoint must "
        "trust its public key",
    )
    parser.add_argument(
        "--new-key", action="store_true", help="make the --signing-key file if it is missing"
    )
    parser.add_argument(
        "--print-public-key",
        action="store_true",
        help="print the public key of --signing-key (PEM) and exit",
    )
    parser.add_argument(
        "--ca-file", metavar="PEM", help="CA certificates to trust for an HTTPS endpoint"
    )
    parser.add_argument(
        "--delivery-timeout",
        metavar="SECONDS",
        default=str(DEFAULT_DELIVERY_TIMEOUT),
        help=f"deadline of each delivery: connect, send and the whole answer "
        f"(default {DEFAULT_DELIVERY_TIMEOUT:g})",
    )
    parser.add_argument(
        opt.REPORT_DIR.flag,
        dest="report_dir",
        metavar="DIR",
        help=f"where the reports go (default: ${opt.REPORT_DIR.env}, else reports)",
    )
    parser.add_argument("pytest_args", nargs=argparse.REMAINDER, help="-- then pytest arguments")
    return parser


def _report_dir(ns: argparse.Namespace) -> Path:
    """The check's report folder: ``--report-dir``, else its variable, else ``reports``
    (resolved once, in ``check_receiver``, and passed down)."""
    return Path(ns.report_dir or os.environ.get(opt.REPORT_DIR.env) or "reports")


def _signing_key(ns: argparse.Namespace) -> SigningKey:
    from conformance.webhooks.delivering.signing_key import SigningKeyError, load_signing_key

    if not ns.signing_key:
        raise _UsageError(
            "conformance receiver: --signing-key is required: give the PEM file of the key "
            "deliveries are signed with (--new-key makes one)"
        )
    try:
        return load_signing_key(Path(ns.signing_key).expanduser(), create=ns.new_key)
    except SigningKeyError as exc:
        message = f"conformance receiver: --signing-key={ns.signing_key!r}: {exc}"
        raise _UsageError(message) from None


def _profile(ns: argparse.Namespace, report_dir: Path) -> ReceiverProfile:
    """The check's profile from the command line, writing to ``report_dir``, or
    ``_UsageError`` naming the setting."""
    from conformance.run.receiver_check import ReceiverProfile
    from conformance.webhooks.delivering.sender import read_ca_file

    parts = urlsplit(ns.url or "")
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise _UsageError(
            f"conformance receiver: --url={ns.url!r}: not an http(s) URL. Give the platform's "
            "webhook endpoint, e.g. https://platform.example.com/webhooks."
        )
    try:
        timeout = float(ns.delivery_timeout)
    except ValueError:
        timeout = 0.0
    if not timeout > 0:
        raise _UsageError(
            f"conformance receiver: --delivery-timeout={ns.delivery_timeout!r}: not a positive "
            "number of seconds. Give e.g. 10."
        )
    ca_file = None
    if ns.ca_file:
        try:
            ca_file = str(read_ca_file(ns.ca_file))
        except ValueError as exc:
            raise _UsageError(f"conformance receiver: --ca-file={ns.ca_file!r}: {exc}") from None
    return ReceiverProfile(
        url=ns.url,
        key=_signing_key(ns),
        report_dir=str(report_dir),
        ca_file=ca_file,
        delivery_timeout=timeout,
    )


def pytest_arguments(ns: argparse.Namespace, report_dir: Path) -> list[str]:
    """The pytest command line of a receiver check writing to ``report_dir``."""
    return [
        str(RECEIVER_SUITE_DIR),
        *session_arguments(report_dir, RECEIVER_PLUGINS),
        *passed_through(ns.pytest_args),
    ]


def _usage_error(report_dir: Path, message: str) -> int:
    """Say it, and leave this check's verdict in the folder (never an earlier PASSED)."""
    print(message, file=sys.stderr)
    if run_outcome.claim(report_dir, None):
        run_outcome.write_verdict_only(report_dir, "usage_error", message)
    print(f"conformance: exit {EXIT_USAGE}")
    return EXIT_USAGE


def print_public_key(ns: argparse.Namespace) -> int:
    """``--print-public-key``: the PEM a platform's test environment must trust."""
    try:
        key = _signing_key(ns)
    except _UsageError as exc:
        print(exc, file=sys.stderr)
        return EXIT_USAGE
    print(key.public_pem(), end="")
    return EXIT_OK


def check_receiver(ns: argparse.Namespace) -> int:
    """Claim the report folder, run the receiver check, say where the reports are."""
    import pytest

    from conformance.reporting.report_paths import render_locations
    from conformance.reporting.summaries import RunOutcome
    from conformance.run.cli import session_exit_code

    report_dir = _report_dir(ns)
    try:
        profile = _profile(ns, report_dir)
    except _UsageError as exc:
        return _usage_error(report_dir, str(exc))
    run_outcome.RUN.report_dir, run_outcome.RUN.code = None, None
    if not run_outcome.claim(report_dir, None):
        print(f"conformance: exit {EXIT_USAGE}")
        return EXIT_USAGE
    run_outcome.RUN.report_dir = report_dir
    run_outcome.write_verdict_only(report_dir, "incomplete", None)
    outcome = run_outcome.RUN.outcome = RunOutcome()  # handed to the session as a plugin
    crash: BaseException | None = None
    code: int = pytest.ExitCode.INTERRUPTED
    try:
        code = pytest.main(pytest_arguments(ns, report_dir), plugins=[outcome, profile])
    except KeyboardInterrupt:  # before pytest's session, or after it said its verdict
        pass
    except Exception as exc:  # a crash of the kit: the reports say INCOMPLETE
        crash = exc
    run_outcome.RUN.code = session_exit_code(code, crash, report_dir, outcome)
    print(f"{render_locations(report_dir)}\nconformance: exit {run_outcome.RUN.code}")
    return run_outcome.RUN.code


def main(argv: Sequence[str]) -> int:
    """``conformance receiver ARGS``: the exit code (see the module's text)."""
    try:
        ns = build_parser().parse_args(list(argv))
    except SystemExit as exc:  # argparse exits 2 on usage errors, 0 on --help
        code = int(exc.code or 0)
        if code:
            report_dir = run_outcome.report_dir_in(argv)
            if run_outcome.claim(report_dir, None):
                run_outcome.write_verdict_only(
                    report_dir, "usage_error", "the command line did not parse (see above)"
                )
        return code
    if ns.print_public_key:
        return print_public_key(ns)
    return check_receiver(ns)
