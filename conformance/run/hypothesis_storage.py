"""Where Hypothesis keeps what it stores (its example database, its caches of constants and
Unicode data): the kit's cache folder, never a ``.hypothesis/`` in the folder a run starts in.

Hypothesis reads ``HYPOTHESIS_STORAGE_DIRECTORY`` when it first stores something, so setting
it when the plugin is configured, before any test runs, is in time; xdist workers and the
processes a run starts inherit it. A folder the user chose (the variable already set) stays.
"""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ["STORAGE_ENV", "keep_hypothesis_storage_in_the_kit_cache"]

STORAGE_ENV = "HYPOTHESIS_STORAGE_DIRECTORY"


def keep_hypothesis_storage_in_the_kit_cache() -> Path:
    """Point Hypothesis at ``<user cache>/gpsi-conformance/hypothesis`` unless the user
    chose a folder; the folder it will use."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    chosen = os.environ.setdefault(STORAGE_ENV, str(Path(base) / "gpsi-conformance" / "hypothesis"))
    return Path(chosen)
