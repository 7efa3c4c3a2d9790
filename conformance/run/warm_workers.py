"""xdist workers forked from a process that has already imported the kit.

An xdist worker is a new Python: it imports pytest, the plugins and the kit (about 0.5 s of
CPU), only then collects, and does so after the controller has done the same imports. On a
two-core machine a ``-n 2`` run paid that twice over, at its start, before any test ran.

``conformance run -n N`` (on Linux) therefore imports what a worker needs once, in its own
process before pytest starts, and forks a small server from it while it is still a single
thread. xdist starts each worker through ``worker_launcher.py`` (the plugin points the
workers' ``python`` at it, ``worker_specs``), which hands its pipes to the server; the
server forks a worker that shares those imports and runs execnet's bootstrap as a new Python
would. The worker is otherwise the same: same streams, working folder, environment and
signals, and the launcher exits with its status.

Only this user can reach the server: its socket is in a folder only this user may enter,
and it checks the peer's user id. It ends when the command that started it ends. When it
cannot be started (another OS, a thread already running, a socket path too long), or a
launcher cannot reach it, workers start the usual way.
"""

from __future__ import annotations

import builtins
import contextlib
import gc
import importlib
import io
import json
import os
import re
import select
import shlex
import shutil
import signal
import socket
import struct
import sys
import tempfile
import threading
import traceback
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from conformance.ground.datafiles import SUITES_DIR
from conformance.run import embedded, worker_launcher

__all__ = ["WarmWorkers", "preload", "start", "stop", "take", "worker_specs"]

# The modules a worker imports before and while collecting, besides the suites themselves
# (which pytest imports with its assertion rewriting) and what they import (``preload``).
WORKER_MODULES = (
    "pytest",
    "execnet",
    "xdist.plugin",
    "xdist.looponfail",
    "xdist.remote",
    "allure_pytest.plugin",
    "_hypothesis_pytestplugin",
    "hypothesis",
    "hypothesis.stateful",
    "conformance.run.plugin",
)
_SUITE_IMPORT = re.compile(r"^\s*(?:from|import)\s+(conformance(?:\.\w+)+)", re.MULTILINE)
_MAX_SOCKET_PATH = 100  # sun_path holds 108 bytes on Linux
_ALLOWED_FLAGS = frozenset(("-u", "-B"))
_REQUEST_TIMEOUT_S = 5.0
_started: list[WarmWorkers] = []


@dataclass
class WarmWorkers:
    """A running fork server: where it listens, and the pipe whose closing ends it."""

    folder: Path
    socket_path: Path
    server_pid: int
    control_fd: int

    def python_command(self) -> str:
        """What xdist should start as a worker's Python (a tx spec's ``python=``)."""
        return shlex.join(
            [sys.executable, "-I", "-S", worker_launcher.__file__, str(self.socket_path)]
        )


def preload() -> None:
    """Import what a worker needs: pytest's own plugins, the run's plugins, and every module
    of the kit the suites import."""
    from _pytest.config import default_plugins

    names = [f"_pytest.{name}" for name in default_plugins]
    names += WORKER_MODULES
    names += sorted(_suite_dependencies())
    for name in names:
        with contextlib.suppress(ImportError):  # an optional plugin not installed
            importlib.import_module(name)


def _suite_dependencies() -> set[str]:
    """The kit's modules that the suites import (read off their import lines)."""
    found: set[str] = set()
    for path in SUITES_DIR.rglob("*.py"):
        with contextlib.suppress(OSError, UnicodeDecodeError):
            found.update(_SUITE_IMPORT.findall(path.read_text(encoding="utf-8")))
    return {name for name in found if not name.startswith("conformance.suites")}


def start() -> WarmWorkers | None:
    """Preload and fork the server; None where warm workers cannot be used here."""
    if not sys.platform.startswith("linux") or not hasattr(socket, "send_fds"):
        return None
    preload()
    if threading.active_count() != 1:  # a fork would copy locks other threads may hold
        return None
    # what was imported lives as long as the process: the garbage collector need not walk
    # it again in every worker (a quarter of a worker's collection of the suites was that)
    gc.freeze()
    folder = Path(tempfile.mkdtemp(prefix="conformance-workers-"))  # mode 0700
    try:
        warm = _fork_server(folder)
    except OSError:
        warm = None
    if warm is None:
        shutil.rmtree(folder, ignore_errors=True)
        return None
    _started.append(warm)
    return warm


def _fork_server(folder: Path) -> WarmWorkers | None:
    socket_path = folder / "fork.sock"
    if len(os.fsencode(socket_path)) > _MAX_SOCKET_PATH or "//" in str(socket_path):
        return None
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(str(socket_path))
    listener.listen(16)
    control_read, control_write = os.pipe()
    for stream in (sys.stdout, sys.stderr):
        stream.flush()  # nothing buffered may be written twice
    pid = os.fork()
    if pid == 0:
        os.close(control_write)
        try:
            _serve(listener, control_read, folder)
        finally:
            os._exit(0)
    listener.close()
    os.close(control_read)
    os.set_inheritable(control_write, False)
    return WarmWorkers(folder, socket_path, pid, control_write)


def take() -> WarmWorkers | None:
    """The server this process started, if any (the plugin points xdist at it)."""
    return _started[-1] if _started else None


def worker_specs(specs: list[str]) -> list[str]:
    """xdist's tx specs with each plain local worker (``popen``) started warm, when this
    process started the server; the specs as they are otherwise."""
    warm = take()
    python = warm.python_command() if warm is not None else ""
    if not python or "//" in python:  # a tx spec cannot hold "//"
        return specs
    return [f"popen//python={python}" if spec == "popen" else spec for spec in specs]


def stop() -> None:
    """End the server (it also ends by itself when this process ends)."""
    while _started:
        warm = _started.pop()
        with contextlib.suppress(OSError):
            os.close(warm.control_fd)
        with contextlib.suppress(ChildProcessError, OSError):
            os.waitpid(warm.server_pid, 0)
        shutil.rmtree(warm.folder, ignore_errors=True)


# -- the server ------------------------------------------------------------------------------


def _serve(listener: socket.socket, control_fd: int, folder: Path) -> None:
    """Fork a worker for each launcher that connects, report each worker's exit status to
    its launcher, kill a worker whose launcher died; return when ``control_fd`` closes."""
    # the command decides when the server ends: a signal to the whole process group must not
    # take it before the workers it has to reap
    for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(signum, signal.SIG_IGN)
    embedded.forget_early()
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1):  # not the command's output: a pipe reader must see it end with it
        os.dup2(null, fd)
    os.close(null)
    wake_read, wake_write = os.pipe()
    os.set_blocking(wake_write, False)
    signal.set_wakeup_fd(wake_write)
    signal.signal(signal.SIGCHLD, lambda signum, frame: None)
    launchers: dict[int, socket.socket] = {}  # worker pid -> its launcher's connection
    killed: set[int] = set()
    try:
        while True:
            alive = [c for pid, c in launchers.items() if pid not in killed]
            watched: list[Any] = [listener, control_fd, wake_read, *alive]
            readable, _, _ = select.select(watched, [], [])
            if control_fd in readable:
                return
            if wake_read in readable:
                with contextlib.suppress(BlockingIOError, InterruptedError):
                    os.read(wake_read, 512)
            _reap(launchers)
            killed &= set(launchers)
            for pid, connection in launchers.items():
                if connection in readable:  # the launcher is gone: so goes its worker
                    with contextlib.suppress(ProcessLookupError):
                        os.kill(pid, signal.SIGKILL)
                    killed.add(pid)
            if listener in readable:
                _accept(listener, launchers, (control_fd, wake_read, wake_write))
    finally:  # workers still running end on their own, when their pipes close
        shutil.rmtree(folder, ignore_errors=True)


def _reap(launchers: dict[int, socket.socket]) -> None:
    """Tell the launcher of every worker that ended how it ended."""
    while True:
        try:
            pid, status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return
        connection = launchers.pop(pid, None)
        if connection is None:
            continue
        code = os.waitstatus_to_exitcode(status)
        with contextlib.suppress(OSError):
            connection.sendall(bytes([code & 0xFF if code >= 0 else 128 - code]))
        connection.close()


def _accept(
    listener: socket.socket, launchers: dict[int, socket.socket], own_fds: tuple[int, ...]
) -> None:
    connection, _ = listener.accept()
    try:
        request, fds = _read_request(connection)
    except (OSError, ValueError):
        connection.close()
        return
    try:
        pid = os.fork()
    except OSError:  # the launcher exits 1; xdist reports the worker as failed to start
        pid = -1
    if pid == 0:
        listener.close()
        connection.close()
        for other in launchers.values():
            other.close()
        for fd in own_fds:
            os.close(fd)
        _become_worker(request, fds)  # never returns
    for fd in fds:
        os.close(fd)
    if pid < 0:
        connection.close()
        return
    launchers[pid] = connection


def _read_request(connection: socket.socket) -> tuple[dict[str, object], list[int]]:
    """The launcher's streams and request; only from this user, with exactly three streams
    and the arguments execnet gives a Python."""
    credentials = connection.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, 12)
    _, uid, _ = struct.unpack("3i", credentials)
    connection.settimeout(_REQUEST_TIMEOUT_S)  # a stalled launcher must not stall the server
    data, fds, _, _ = socket.recv_fds(connection, 65536, len(worker_launcher.STREAMS))
    try:
        return _checked_request(connection, uid, data, fds), fds
    except BaseException:
        for fd in fds:
            os.close(fd)
        raise


def _checked_request(
    connection: socket.socket, uid: int, data: bytes, fds: list[int]
) -> dict[str, object]:
    header_size = worker_launcher.HEADER_BYTES
    if uid != os.getuid():
        raise ValueError("a connection from another user")
    if len(fds) != len(worker_launcher.STREAMS) or len(data) < header_size:
        raise ValueError("a launcher must send its three standard streams")
    size = int.from_bytes(data[:header_size], "big")
    body = data[header_size:]
    while len(body) < size:
        chunk = connection.recv(size - len(body))
        if not chunk:
            raise ValueError("the request was cut short")
        body += chunk
    request: dict[str, object] = json.loads(body.decode("utf-8", errors="surrogateescape"))
    argv = request.get("argv")
    if (
        not isinstance(argv, list)
        or len(argv) < 2
        or argv[-2] != "-c"
        or not set(argv[:-2]) <= _ALLOWED_FLAGS
        or not isinstance(request.get("env"), dict)
        or not isinstance(request.get("cwd"), str)
    ):
        raise ValueError("not the arguments execnet starts a worker with")
    connection.settimeout(None)
    return request


# -- a worker ---------------------------------------------------------------------------------


def _become_worker(request: dict[str, object], fds: list[int]) -> None:
    """Turn this fork into what ``python FLAGS -c CODE`` started by the launcher would be."""
    code = 1
    try:
        for fd, target in zip(fds, worker_launcher.STREAMS, strict=True):
            os.dup2(fd, target)
            os.close(fd)
        signal.set_wakeup_fd(-1)
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)
        signal.signal(signal.SIGINT, signal.default_int_handler)
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        signal.signal(signal.SIGHUP, signal.SIG_DFL)
        env = request["env"]
        assert isinstance(env, dict)
        os.environ.clear()
        os.environ.update({str(k): str(v) for k, v in env.items()})
        os.chdir(str(request["cwd"]))
        argv = request["argv"]
        assert isinstance(argv, list)
        # what a new Python reads off its flags and environment
        sys.dont_write_bytecode = "-B" in argv[:-2] or bool(env.get("PYTHONDONTWRITEBYTECODE"))
        sys.pycache_prefix = env.get("PYTHONPYCACHEPREFIX") or None
        sys.argv = ["-c"]
        _unbuffered_standard_streams()
        namespace = {"__name__": "__main__", "__builtins__": builtins}
        exec(compile(str(argv[-1]), "<string>", "exec"), namespace)  # execnet's bootstrap
        code = 0
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    except BaseException:
        with contextlib.suppress(Exception):
            traceback.print_exc()
    finally:
        for stream in (sys.stdout, sys.stderr):
            with contextlib.suppress(OSError, ValueError):
                stream.flush()
        os._exit(code)


def _unbuffered_standard_streams() -> None:
    """New standard streams on descriptors 0-2, as ``python -u`` makes them."""
    encoding = sys.stdout.encoding if sys.stdout else "utf-8"
    sys.stdin = io.TextIOWrapper(io.BufferedReader(io.FileIO(0, "r", closefd=False)), encoding)
    for fd, errors in ((1, "strict"), (2, "backslashreplace")):
        raw = io.FileIO(fd, "w", closefd=False)
        stream = io.TextIOWrapper(raw, encoding, errors, write_through=True)
        if fd == 1:
            sys.stdout = stream
        else:
            sys.stderr = stream
