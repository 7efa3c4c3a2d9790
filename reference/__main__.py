"""``python -m reference``: see ``reference.cli``."""

from reference.cli import main

raise SystemExit(main())
