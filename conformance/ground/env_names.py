"""``CONFORMANCE_*`` environment variables the kit reads; any other is a usage error.

A misspelt variable (``CONFORMANCE_FEATURE``) would otherwise be ignored silently and the
run would test something else than meant.
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping

from conformance.ground import options as opt

__all__ = ["PREFIX", "known_names", "unknown_names"]

PREFIX = "CONFORMANCE_"
# read by the kit outside the target settings (the CLI's own, and the self-tests' runners)
_OTHERS = frozenset({opt.PROFILE_ENV, opt.PARTS_ENV, opt.WAIVERS_ENV, opt.BASELINE_ENV})


def known_names() -> frozenset[str]:
    return frozenset(s.env for s in opt.SETTINGS) | _OTHERS


def unknown_names(environ: Mapping[str, str]) -> list[tuple[str, str | None]]:
    """Each unknown ``CONFORMANCE_*`` name with the closest known one, if any."""
    known = known_names()
    found = []
    for name in sorted(environ):
        if name.startswith(PREFIX) and name not in known:
            close = difflib.get_close_matches(name, sorted(known), n=1, cutoff=0.8)
            found.append((name, close[0] if close else None))
    return found
