"""The pytest plugin and the shape of a run: options, target profile, fixtures, adapter hooks,
markers, scheduling, preflight, the embedded sandbox and the ``conformance`` command."""
