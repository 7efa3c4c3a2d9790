"""``python -m reference``: see ``reference.server.cli``."""

from reference.server.cli import run_and_exit

run_and_exit()
