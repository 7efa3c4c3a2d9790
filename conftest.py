"""In-repo runs load the plugin exactly as an installed copy does.

An installed (or editable) copy registers ``conformance.run.plugin`` through the ``pytest11``
entry point; a bare checkout on ``sys.path`` gets the same module registered here. The
project's own tests drive the plugin with ``pytester``.
"""

from importlib.metadata import entry_points

pytest_plugins = ["pytester"]
if not any(ep.value == "conformance.run.plugin" for ep in entry_points(group="pytest11")):
    pytest_plugins.append("conformance.run.plugin")
