"""The assembled sandbox: the application, the services opened at start-up, the authentication
middleware, the tables created, and the ``serve`` command (the composition root)."""

import sys

# httpx imports its command-line client whenever click, rich and pygments are installed
# (about 50 ms of every start of the sandbox); the sandbox never uses it. A None entry makes
# that import fail, and httpx then skips it.
sys.modules.setdefault("httpx._main", None)  # type: ignore[arg-type]
