"""``python -m reference serve``: run the reference sandbox on loopback.

After the socket accepts connections, the first stdout line is one JSON object with the
base URL, the credentials and the webhook public key; everything else goes to stderr.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import dataclasses
import ipaddress
import json
import logging
import math
import os
import signal
import socket
import sqlite3
import sys
from collections.abc import Callable, Sequence
from types import FrameType
from typing import Any, NoReturn

import uvicorn

from reference.accounts.rule_based import FEATURES
from reference.cards.issuing import FEATURES as CARD_FEATURES
from reference.client_check.journal import Journal, JournalError
from reference.client_check.observers import watching
from reference.faults import UnknownFaultError, describe_faults, seams_for, validate_faults
from reference.kernel import pages
from reference.kernel.platforms import CredentialConflictError
from reference.kernel.services import Services
from reference.kernel.settings import IN_MEMORY, ServerSettings
from reference.server.app import create_app
from reference.server.services import open_services
from reference.wallet.api import FEATURES as WALLET_FEATURES
from reference.wallet.crypto import enclave_public_hex
from reference.wallet.oidc import ISSUERS
from reference.wallet.passkeys import ORIGIN, RP_ID
from reference.webhooks.signing import public_key_pem


def _port(text: str) -> int:
    port = int(text)
    if not 0 <= port <= 65535:
        raise argparse.ArgumentTypeError(f"port must be 0..65535, got {text}")
    return port


# A stand-in for a slow remote target, not a way to hang the suite.
MAX_RESPONSE_DELAY_S = 10.0


def _seconds(text: str) -> float:
    value = float(text)
    if not (math.isfinite(value) and value > 0):
        raise argparse.ArgumentTypeError(f"must be a positive number of seconds, got {text}")
    return value


def _delay(text: str) -> float:
    value = float(text)
    if not (math.isfinite(value) and 0 <= value <= MAX_RESPONSE_DELAY_S):
        raise argparse.ArgumentTypeError(
            f"must be between 0 and {MAX_RESPONSE_DELAY_S:g} seconds, got {text}"
        )
    return value


# Bounds of the webhook options: a scale above 1 would only slow retries beyond the day-long
# schedule, and an attempt longer than a minute holds the endpoint's queue for nothing.
MAX_WEBHOOK_TIMEOUT_S = 60.0


def _retry_scale(text: str) -> float:
    value = float(text)
    if not (math.isfinite(value) and 0 < value <= 1):
        raise argparse.ArgumentTypeError(f"must be a factor in (0, 1], e.g. 0.001, got {text}")
    return value


def _webhook_timeout(text: str) -> float:
    value = float(text)
    if not (math.isfinite(value) and 0 < value <= MAX_WEBHOOK_TIMEOUT_S):
        raise argparse.ArgumentTypeError(
            f"must be between 0 and {MAX_WEBHOOK_TIMEOUT_S:g} seconds, got {text}"
        )
    return value


# The command's name in its help and usage errors: `conformance serve` sets it, as it runs this
# command in a process of its own (the kit never imports this package).
PROG_ENV = "REFERENCE_PROG"
DESCRIPTION = (
    "Run the reference sandbox on loopback. Once it accepts connections, the first line on "
    "stdout is one JSON object with the base URL, the credentials and the webhook public key; "
    "everything else goes to stderr."
)


def build_parser(prog: str | None = None) -> argparse.ArgumentParser:
    """The command-line parser, named ``prog`` (default: ``$REFERENCE_PROG`` or
    ``python -m reference``)."""
    name = prog or os.environ.get(PROG_ENV) or "python -m reference"
    parser = argparse.ArgumentParser(prog=name, description=DESCRIPTION)
    commands = parser.add_subparsers(dest="command", required=True)
    serve = commands.add_parser("serve", help="run the reference sandbox", description=DESCRIPTION)
    serve.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1)")
    serve.add_argument("--port", type=_port, default=0, help="port; 0 picks a free one")
    serve.add_argument("--db", default=IN_MEMORY, help="SQLite file (default: in memory)")
    serve.add_argument("--regulated", action="store_true", help="platform is regulated")
    serve.add_argument(
        "--skip-verification-paperwork",
        action="store_true",
        help="sandbox setting 'Skip verification paperwork' on",
    )
    serve.add_argument(
        "--quote-lifetime", type=_seconds, default=60.0, metavar="SECONDS", help="default 60"
    )
    serve.add_argument(
        "--response-delay",
        type=_delay,
        default=0.0,
        metavar="SECONDS",
        help="wait this long before every API answer, like a remote target (default 0)",
    )
    serve.add_argument(
        "--webhook-retry-scale",
        type=_retry_scale,
        default=1.0,
        metavar="FACTOR",
        help="multiply every webhook retry delay by FACTOR (default 1: retries over about"
        " 32 hours; 0.001 compresses them to about 2 minutes, for tests)",
    )
    serve.add_argument(
        "--webhook-timeout",
        type=_webhook_timeout,
        default=10.0,
        metavar="SECONDS",
        help="deadline of one delivery attempt, connecting to the whole answer (default 10)",
    )
    serve.add_argument(
        "--allow-private-webhooks",
        action="store_true",
        help="accept a webhookEndpoint on a private address (10/8, 172.16/12, 192.168/16,"
        " fc00::/7); link-local addresses are refused regardless",
    )
    serve.add_argument("--client-id", help="fixed sandbox token id of the primary platform")
    serve.add_argument("--client-secret", help="fixed secret to go with --client-id")
    serve.add_argument(
        "--fault", action="append", default=[], metavar="NAME", help="break one behaviour"
    )
    serve.add_argument("--list-faults", action="store_true", help="list fault modes and exit")
    serve.add_argument(
        "--variant",
        action="store_true",
        help="a fault-free reference that chose otherwise where the interface is open"
        " (errorCode, execute 202, fees rounded up, paged lists, deliveries out of order;"
        " SANDBOX.md, 'The variant reference')",
    )
    serve.add_argument(
        "--check-clients",
        metavar="DIR",
        help="judge every request a platform's client sends by what the interface asks of a"
        " client, and journal each finding in DIR as it arrives (DIR/client-check.jsonl);"
        " `conformance serve --check-clients DIR` writes the reports there when stopped",
    )
    # Usage errors found after parsing are reported with the sub-command's usage line.
    serve.set_defaults(usage_error=serve.error)
    return parser


# Values that may start with a dash (a secret "-abc"), which argparse would take for options.
_DASH_VALUE_FLAGS = ("--client-id", "--client-secret")


def _join_dash_values(argv: list[str]) -> list[str]:
    """``--client-secret -abc`` as ``--client-secret=-abc``. A value starting with ``--`` is
    left alone (it reads as the next option: give ``--client-secret=--abc``), and so is
    ``-h``."""
    joined: list[str] = []
    index = 0
    while index < len(argv):
        arg, following = argv[index], argv[index + 1] if index + 1 < len(argv) else ""
        if (
            arg in _DASH_VALUE_FLAGS
            and following.startswith("-")
            and not following.startswith("--")
            and following != "-h"
        ):
            joined.append(f"{arg}={following}")
            index += 2
        else:
            joined.append(arg)
            index += 1
    return joined


def settings_from_args(args: argparse.Namespace) -> ServerSettings:
    """Validated settings, or a usage error (exit 2) naming the bad flag."""
    usage_error: Callable[[str], NoReturn] = args.usage_error
    if (args.client_id is None) != (args.client_secret is None):
        usage_error("--client-id and --client-secret go together; give both or neither")
    if args.client_id is not None and (not args.client_id or ":" in args.client_id):
        usage_error(f"--client-id must be non-empty and contain no ':', got {args.client_id!r}")
    if args.client_secret == "":
        usage_error("--client-secret must not be empty")
    try:
        faults = validate_faults(args.fault)
        seams = seams_for(faults)
    except UnknownFaultError as exc:
        usage_error(f"--fault: {exc}")
    return ServerSettings(
        host=args.host,
        port=args.port,
        db_path=args.db,
        regulated=args.regulated,
        skip_verification_paperwork=args.skip_verification_paperwork,
        quote_lifetime_s=args.quote_lifetime,
        response_delay_s=args.response_delay,
        webhook_retry_scale=args.webhook_retry_scale,
        webhook_timeout_s=args.webhook_timeout,
        allow_private_webhooks=args.allow_private_webhooks,
        faults=faults,
        variant=args.variant,
        seams=seams,
        client_id=args.client_id,
        client_secret=args.client_secret,
    )


def bind(host: str, port: int) -> socket.socket:
    """A listening socket; binding here makes port 0 known before the banner is printed."""
    family, kind, proto, _, address = socket.getaddrinfo(
        host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE
    )[0]
    sock = socket.socket(family, kind, proto)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(address)
    sock.listen(128)
    return sock


def base_url(sock: socket.socket, base_path: str) -> str:
    """The URL clients use; a wildcard bind is reached through loopback."""
    host, port = sock.getsockname()[:2]
    address = ipaddress.ip_address(host)
    if address.is_unspecified:
        address = ipaddress.ip_address("::1" if address.version == 6 else "127.0.0.1")
    shown = f"[{address}]" if address.version == 6 else str(address)
    return f"http://{shown}:{port}{base_path}"


def banner(services: Services, url: str) -> dict[str, Any]:
    """The start-up line: the output contract's four keys first, then the extras."""
    settings = services.settings
    creds = services.credentials
    return {
        "base_url": url,
        "client_id": creds.primary.token_id,
        "client_secret": creds.primary.secret,
        "webhook_public_key_pem": public_key_pem(services.webhook_key),
        "second_client_id": creds.second.token_id,
        "second_client_secret": creds.second.secret,
        "production_client_id": creds.production.token_id,
        "production_client_secret": creds.production.secret,
        "faults": sorted(settings.faults),
        "regulated": settings.regulated,
        "skip_verification_paperwork": settings.skip_verification_paperwork,
        # the module implementing the suite's adapter hooks for this sandbox
        "adapter": "reference.adapter",
        # embedded-wallet authentication (§5): passkey relying party, OIDC issuers, and the
        # enclave key that signs bundles
        "wallet_rp_id": RP_ID,
        "wallet_origin": ORIGIN,
        "wallet_oidc_issuers": list(ISSUERS),
        "wallet_enclave_public_key": enclave_public_hex(services.db),
        # features the suite may rely on (its --features), e.g. rule-based accounts
        "features": [*FEATURES, *CARD_FEATURES, *WALLET_FEATURES],
        # how the lists page (the suite's [pagination] settings), and the variant's flag
        "variant": settings.variant,
        "pagination": pages.describe(pages.style_of(settings)),
    }


class _AnnouncingServer(uvicorn.Server):
    """A uvicorn server that runs a callback once it is accepting connections."""

    def __init__(self, config: uvicorn.Config, on_started: Callable[[], None]) -> None:
        super().__init__(config)
        self._on_started = on_started
        self._wake_on_exit: Callable[[], object] = lambda: None

    async def startup(self, sockets: list[socket.socket] | None = None) -> None:
        await super().startup(sockets=sockets)
        if self.started and not self.should_exit:
            self._on_started()

    async def main_loop(self) -> None:
        # uvicorn looks for a stop signal every 0.1 s; here the signal also wakes the loop,
        # so SIGTERM starts the shutdown at once (test runs stop a sandbox hundreds of times)
        loop = asyncio.get_running_loop()
        stop_asked = asyncio.Event()
        self._wake_on_exit = lambda: loop.call_soon_threadsafe(stop_asked.set)
        counter = 0
        should_exit = await self.on_tick(counter)
        while not should_exit:
            counter = (counter + 1) % 864000
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop_asked.wait(), 0.1)
            should_exit = await self.on_tick(counter)

    def handle_exit(self, sig: int, frame: FrameType | None) -> None:
        super().handle_exit(sig, frame)
        self._wake_on_exit()


def _exit_quietly(signum: int, frame: FrameType | None) -> None:
    # uvicorn handles SIGINT/SIGTERM while serving and re-raises them once it has shut
    # down; ending here with status 0 makes that a clean exit instead of a kill.
    raise SystemExit(0)


def open_client_check(args: argparse.Namespace) -> Journal | None:
    """The journal of ``--check-clients DIR``, or None; a usage error when DIR cannot be
    written."""
    if args.check_clients is None:
        return None
    usage_error: Callable[[str], NoReturn] = args.usage_error
    try:
        return Journal(args.check_clients)
    except JournalError as exc:
        usage_error(f"--check-clients {args.check_clients!r}: {exc}")


def serve(settings: ServerSettings, client_check: Journal | None = None) -> int:
    """Serve until SIGINT or SIGTERM; return the exit status. With ``client_check``, every
    request is judged by the client rules and the findings go to its journal."""
    for signum in (signal.SIGINT, signal.SIGTERM):
        signal.signal(signum, _exit_quietly)
    try:
        sock = bind(settings.host, settings.port)
    except OSError as exc:
        print(f"cannot listen on {settings.host}:{settings.port}: {exc}", file=sys.stderr)
        return 1
    try:
        services = open_services(settings)
    except CredentialConflictError as exc:
        print(f"--client-id: {exc}", file=sys.stderr)
        return 2
    except sqlite3.Error as exc:
        print(f"--db {settings.db_path!r}: cannot open the database: {exc}", file=sys.stderr)
        return 2
    url = base_url(sock, settings.base_path)
    if client_check is not None:
        client_check.start(url)

    def announce() -> None:
        sys.stdout.write(json.dumps(banner(services, url)) + "\n")
        sys.stdout.flush()

    # "auto" picks httptools and uvloop when importable (pyproject.toml installs both: they
    # cut the sandbox's CPU per request), else h11 and asyncio: the same behaviour, slower.
    config = uvicorn.Config(
        create_app(services, client_check=client_check),
        log_level="warning",
        access_log=False,
        lifespan="on",
        http="auto",
        loop="auto",
    )
    server = _AnnouncingServer(config, announce)
    try:
        server.run(sockets=[sock])  # on the event loop "auto" chose
    finally:
        services.db.close()
        sock.close()
        if client_check is not None:
            client_check.close()
    return 0 if server.started else 1


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of ``python -m reference``."""
    logging.basicConfig(stream=sys.stderr, level=logging.WARNING)
    parser = build_parser()
    args = parser.parse_args(_join_dash_values(list(sys.argv[1:] if argv is None else argv)))
    if args.list_faults:
        print(describe_faults())
        return 0
    settings = settings_from_args(args)
    client_check = open_client_check(args)
    if client_check is not None:  # the rules watch what the areas open and verify
        settings = dataclasses.replace(settings, seams=watching(settings.seams))
    return serve(settings, client_check)


def run_and_exit(argv: Sequence[str] | None = None) -> NoReturn:
    """``python -m reference``: ``main``, then the process ends without the interpreter's
    teardown (0.2 s of freeing the heap, paid at every stop of the sandboxes a test run
    starts). By then the server has shut down and the database is closed; SIGTERM's clean
    exit arrives here as ``SystemExit(0)``. Any other exit keeps Python's usual path."""
    try:
        status = main(argv)
    except SystemExit as stop:
        if stop.code not in (0, None):
            raise
        status = 0
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):  # a closed or broken pipe
            stream.flush()
    logging.shutdown()
    os._exit(status)
