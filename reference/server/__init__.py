"""The sandbox's server: application, routing, settings, database, auth, errors, validation,
seams and the ``serve`` command."""

import sys

# httpx imports its command-line client whenever click, rich and pygments are installed
# (about 50 ms of every start of the sandbox); the sandbox never uses it. A None entry makes
# that import fail, and httpx then skips it.
sys.modules.setdefault("httpx._main", None)  # type: ignore[arg-type]
