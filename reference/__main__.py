"""``python -m reference``: see ``reference.server.cli``."""

from reference.server.cli import main

raise SystemExit(main())
