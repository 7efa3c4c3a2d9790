"""The command xdist starts for each worker of a ``conformance run -n N`` (``warm_workers``).

xdist (through execnet) starts a worker as ``PYTHON -u -c BOOTSTRAP`` with pipes for its
standard input and output. With warm workers, PYTHON is this script, run as
``python -I -S worker_launcher.py SOCKET``: it hands its standard streams, working folder,
environment and arguments to the fork server listening on SOCKET, which forks a worker that
has already imported the kit, then waits for that worker to end and exits with its status.
Where the server cannot be reached it becomes an ordinary worker (``exec`` of the same
Python), so a run never depends on the server.

Standard library only, imported by nothing: it runs without ``site`` and starts in a few
milliseconds.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import sys

HEADER_BYTES = 4
STREAMS = (0, 1, 2)


def _ordinary_worker(python_args: list[str]) -> None:
    """Replace this process with the Python that would have run without warm workers."""
    os.execv(sys.executable, [sys.executable, *python_args])


def main(argv: list[str]) -> int:
    """Launch one warm worker; its exit status (1 if the server lost track of it)."""
    socket_path, python_args = argv[0], argv[1:]
    request = json.dumps({"cwd": os.getcwd(), "env": dict(os.environ), "argv": python_args})
    body = request.encode("utf-8", errors="surrogateescape")
    try:
        connection = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        connection.connect(socket_path)
        socket.send_fds(connection, [len(body).to_bytes(HEADER_BYTES, "big") + body], STREAMS)
    except OSError:
        _ordinary_worker(python_args)
        return 1  # not reached
    # Ctrl-C reaches the whole process group: the worker handles it; this process waits
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    # the worker holds the streams now: the pipes must close when it ends, not when we do
    null = os.open(os.devnull, os.O_RDWR)
    for fd in STREAMS:
        os.dup2(null, fd)
    os.close(null)
    status = connection.recv(1)
    return status[0] if status else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
