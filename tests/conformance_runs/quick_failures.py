"""Loaded into the fault-mode runs (``-p tests.conformance_runs.quick_failures``).

A fault run asks one thing: does the test meant to catch the fault fail? A failing
Hypothesis test first finds a failing example, then spends most of its time shrinking it
to a smallest one, which a person reading a report wants and a fault run does not. Here
the examples are generated exactly as in any run (same profile, same settings otherwise);
only the shrinking after the first failure is left out, so every fault is caught by the
same example as before, no later.
"""

from __future__ import annotations

import pytest
from hypothesis import Phase, settings

PROFILE = "conformance-fault-run"


@pytest.hookimpl(trylast=True)
def pytest_configure(config: pytest.Config) -> None:
    # after the conformance plugin has loaded its profile (dev, or ci under CI)
    phases = tuple(p for p in settings.default.phases if p is not Phase.shrink)
    settings.register_profile(PROFILE, settings.default, phases=phases)
    settings.load_profile(PROFILE)
