"""The embedded default: the reference sandbox in a subprocess on a free loopback port.

The suite never imports the reference; it starts ``python -m reference serve`` and reads
the one JSON line the output contract promises. This module is the whole concern: the
command line launches a sandbox early (``launch_early``) so its start-up overlaps pytest's
imports; the plugin takes it (``start_lanes``: one sandbox per lane under xdist, each lane's
profile derived from the resolved one) and stops it (``stop_lane``). Its settings
(``--embedded-args``, ``--embedded-sandboxes``) are the profile's, resolved once with it.
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
import threading
import weakref
from dataclasses import dataclass
from typing import Any

from conformance.ground import stop_signal
from conformance.ground.profile import TargetProfile
from conformance.run.state import SessionState
from conformance.webhooks.sink import url_on_loopback

__all__ = [
    "EmbeddedLaunch",
    "EmbeddedSandbox",
    "EmbeddedStartError",
    "cancel_early",
    "forget_early",
    "lane_profile",
    "launch_early",
    "launch_embedded",
    "sandbox_args",
    "sandbox_count",
    "start_embedded",
    "start_lanes",
    "stop_lane",
    "take_early",
    "usable_cpus",
    "wallet_settings",
]

START_TIMEOUT_S = 30.0
QUOTE_LIFETIME_FLAG = "--quote-lifetime"
# The embedded sandbox's quote lifetime (s) unless --embedded-args sets one: long enough for
# any quote-to-execute flow (SCA included) on a loaded machine, short enough that the tests
# waiting for expiry, started early, rarely wait at the end of a run (at 5 s they idled both
# workers of a 7-second -n 2 run for a second).
EMBEDDED_QUOTE_LIFETIME_S = 3
PRIVATE_FLAG = "--allow-private-webhooks"
EMBEDDED_STOP_GRACE_S = 0.05  # what is left of a sandbox's graceful shutdown at the end


class EmbeddedStartError(RuntimeError):
    """The reference sandbox did not start."""


@dataclass
class EmbeddedSandbox:
    """A running reference sandbox and what it printed."""

    process: subprocess.Popen[str]
    info: dict[str, Any]

    def begin_stop(self) -> None:
        """Ask the server to stop, without waiting (its shutdown overlaps other work)."""
        if self.process.poll() is None:
            self.process.terminate()

    def stop(self, grace_s: float = 10.0) -> None:
        """Stop the server and wait for it; kill it if it has not stopped within ``grace_s``."""
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=grace_s)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=10)
        for stream in (self.process.stdout, self.process.stderr):
            if stream is not None:
                stream.close()


@dataclass
class EmbeddedLaunch:
    """A reference sandbox that was started and may not be listening yet."""

    command: list[str]
    process: subprocess.Popen[str]

    def ready(self, timeout: float = START_TIMEOUT_S) -> EmbeddedSandbox:
        """Wait for the start-up line; the running sandbox, or ``EmbeddedStartError``."""
        process = self.process
        first_line: list[str] = []
        reader = threading.Thread(
            target=lambda: first_line.append(process.stdout.readline() if process.stdout else ""),
            daemon=True,
        )
        reader.start()
        reader.join(timeout)
        line = first_line[0] if first_line else ""
        try:
            info = json.loads(line)
            info["base_url"]
        except (ValueError, KeyError, TypeError):
            if process.poll() is None:
                process.kill()
            stderr = process.stderr.read() if process.stderr and process.poll() is not None else ""
            raise EmbeddedStartError(
                f"the embedded reference sandbox did not start ({' '.join(self.command)}): "
                f"first line {line[:200]!r}; stderr: {stderr.strip()[-800:]}"
            ) from None
        # Drain stderr so a chatty server never blocks on a full pipe.
        threading.Thread(target=_drain, args=(process,), daemon=True).start()
        return EmbeddedSandbox(process, info)

    def cancel(self) -> None:
        """Stop a sandbox nobody will use."""
        EmbeddedSandbox(self.process, {}).stop()


def launch_embedded(extra_args: str = "", *, python: str = sys.executable) -> EmbeddedLaunch:
    """Start the reference sandbox without waiting for it."""
    command = [python, "-m", "reference", "serve", "--port", "0", *shlex.split(extra_args)]
    process = subprocess.Popen(
        command,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        # a terminal's Ctrl-C goes to the run, which stops the sandbox when it has done with
        # it (putting configuration back first), not to the sandbox itself
        start_new_session=True,
    )
    _LAUNCHED.add(process)
    return EmbeddedLaunch(command, process)


# Every sandbox this process started and still references: a second Ctrl-C ends the run at
# once (``stop_signal``), and none may outlive it.
_LAUNCHED: weakref.WeakSet[subprocess.Popen[str]] = weakref.WeakSet()


def _kill_launched() -> None:
    for process in list(_LAUNCHED):
        if process.poll() is None:
            process.kill()


stop_signal.on_hard_stop(_kill_launched)


def start_embedded(extra_args: str = "", *, python: str = sys.executable) -> EmbeddedSandbox:
    """Start the reference sandbox and return once it prints its credentials."""
    return launch_embedded(extra_args, python=python).ready()


# The sandbox the command line started before pytest (``launch_early``), while the run's
# process was still importing: its half second of start-up then overlaps that work.
_early: list[tuple[str, EmbeddedLaunch]] = []


def launch_early(extra_args: str, count: int = 1) -> None:
    """Start the ``count`` sandboxes a run is about to ask for (``take_early``)."""
    cancel_early()
    for _ in range(count):
        _early.append((extra_args, launch_embedded(extra_args)))


def take_early(extra_args: str) -> EmbeddedLaunch | None:
    """A sandbox started early with exactly these arguments, or None (one started with
    other arguments is stopped: the run decided otherwise)."""
    if not _early:
        return None
    args, launch = _early.pop()
    if args == extra_args:
        return launch
    launch.cancel()
    return None


def sandbox_count(profile: Any, workers: int) -> int:
    """How many embedded sandboxes a run of ``profile`` with ``workers`` xdist workers starts:
    ``profile.embedded_sandboxes`` if set, else one per worker up to the CPUs this process
    may use. Worker ``gwN`` uses sandbox ``N mod count``: with one each, a worker has a target
    of its own, as a serial run has, instead of queueing behind the other workers' requests
    at one sandbox's event loop. A sink with a public URL or its own CA stays one sink for
    one sandbox."""
    if workers < 2 or profile.sink_https or profile.sink_public_url:
        return 1
    wanted = profile.embedded_sandboxes or usable_cpus()
    return max(1, min(wanted, workers))


def usable_cpus() -> int:
    """The CPUs this process may run on (its affinity, where the system tells)."""
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


def cancel_early() -> None:
    """Stop a sandbox started early that the run did not take."""
    while _early:
        _early.pop()[1].cancel()


def forget_early() -> None:
    """In a process forked from the one that started a sandbox early: drop it without
    stopping it (it is the parent's) and close this process's copies of its pipes."""
    while _early:
        process = _early.pop()[1].process
        for stream in (process.stdout, process.stderr):
            if stream is not None:
                stream.close()


def sandbox_args(profile: TargetProfile) -> str:
    """The command-line arguments of the embedded sandbox for a profile's settings."""
    flags = []
    if profile.regulated:
        flags.append("--regulated")
    if profile.skip_verification_paperwork:
        flags.append("--skip-verification-paperwork")
    if not _sets_flag(profile.embedded_args, QUOTE_LIFETIME_FLAG):
        # short-lived quotes, so expiry tests wait seconds for expiresAt, not minutes
        flags.extend([QUOTE_LIFETIME_FLAG, str(EMBEDDED_QUOTE_LIFETIME_S)])
    if _sink_off_loopback(profile) and not _sets_flag(profile.embedded_args, PRIVATE_FLAG):
        # the run's own sink, where the user put it: the sandbox refuses private addresses
        # for webhookEndpoint unless told (SANDBOX.md)
        flags.append(PRIVATE_FLAG)
    return " ".join([*flags, profile.embedded_args]).strip()


def _sink_off_loopback(profile: TargetProfile) -> bool:
    """Whether the URL the run's sink registers is elsewhere than on loopback."""
    return not url_on_loopback(profile.sink_host) or profile.sink_public_url is not None


def _sets_flag(args: str, flag: str) -> bool:
    """Whether a command line sets ``flag`` (``--flag value`` or ``--flag=value``)."""
    return any(token == flag or token.startswith(f"{flag}=") for token in shlex.split(args))


def _drain(process: subprocess.Popen[str]) -> None:
    if process.stderr is None:
        return
    try:
        for _ in process.stderr:
            pass
    except (ValueError, OSError):  # the pipe was closed by stop()
        return


# start-up line keys -> profile fields (§5 embedded wallet: what the interface does not show)
_WALLET_KEYS = ("wallet_enclave_public_key", "wallet_rp_id", "wallet_origin")


def wallet_settings(info: dict[str, Any], profile: Any) -> dict[str, Any]:
    """The embedded-wallet profile values from the sandbox's start-up line extras; values
    the profile already sets win."""
    values: dict[str, Any] = {}
    for key in _WALLET_KEYS:
        given = getattr(profile, key, None)
        found = info.get(key)
        values[key] = given or (found if isinstance(found, str) and found else None)
    issuers = info.get("wallet_oidc_issuers")
    if isinstance(issuers, str):
        issuers = issuers.split(",")
    found_issuers = tuple(str(i) for i in issuers) if isinstance(issuers, list | tuple) else ()
    values["wallet_oidc_issuers"] = tuple(getattr(profile, "wallet_oidc_issuers", ())) or (
        found_issuers
    )
    return values


def start_lanes(state: SessionState, count: int) -> None:
    """Start the embedded sandbox, and ``count - 1`` more for the xdist workers (each a
    lane of its own: ``SessionState.lane_for``); the profile points at the first."""
    profile = state.profile
    args = sandbox_args(profile)
    launches: list[EmbeddedLaunch] = []
    try:
        # all started before any is waited for: their start-ups overlap
        for _ in range(count):
            launches.append(take_early(args) or launch_embedded(args))
        sandboxes = [launch.ready() for launch in launches]
    except BaseException as exc:  # an interrupt too: no sandbox is left running
        for launch in launches:
            launch.cancel()
        if isinstance(exc, EmbeddedStartError | OSError):
            import pytest

            raise pytest.UsageError(f"conformance: {exc}") from exc
        raise
    finally:
        cancel_early()  # any the command line started beyond these
    state.embedded = sandboxes[0]
    state.profile = lane_profile(profile, sandboxes[0].info)
    state.other_lanes = [
        SessionState(profile=lane_profile(profile, sandbox.info), embedded=sandbox)
        for sandbox in sandboxes[1:]
    ]


def lane_profile(profile: TargetProfile, info: dict[str, Any]) -> TargetProfile:
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
        # how its lists page (the [pagination] settings), unless the profile says
        pagination=profile.pagination or dict(info.get("pagination") or {}),
        **wallet_settings(info, profile),
    )


def stop_lane(lane: SessionState) -> None:
    """Stop an embedded sandbox at the end of the run, and drop its lock files."""
    if lane.embedded is None:
        return
    profile = lane.profile
    if profile.base_url is not None:
        ids = [c.client_id for c in (profile.primary, profile.second) if c]
        from conformance.ground.locks import forget_platform_locks

        forget_platform_locks(profile.base_url, *ids)
    # the run is done with it and its state is thrown away: what is left of its graceful
    # shutdown (uvicorn lingers 0.1 s for open connections) is cut short; its database
    # commits are already durable
    lane.embedded.stop(grace_s=EMBEDDED_STOP_GRACE_S)
