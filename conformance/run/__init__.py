"""The pytest plugin and the shape of a run: options, target profile, fixtures, adapter hooks,
markers, scheduling, preflight, the embedded sandbox and the ``conformance`` command."""

import sys

# httpx imports its command-line client whenever click, rich and pygments are installed
# (about 50 ms of every process of a run, and of each of the self-tests' hundreds of runs);
# no process of a run uses it. A None entry makes that import fail, and httpx then skips it.
sys.modules.setdefault("httpx._main", None)  # type: ignore[arg-type]
