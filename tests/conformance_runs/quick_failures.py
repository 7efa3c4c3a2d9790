"""Loaded into the fault-mode runs (``-p tests.conformance_runs.quick_failures``).

A fault run asks one thing: does the test meant to catch the fault fail? A failing
Hypothesis test first finds a failing example, then spends most of its time shrinking it
to a smallest one, which a person reading a report wants and a fault run does not. Here
the examples are generated exactly as in any run (same profile, same settings otherwise);
only the shrinking after the first failure is left out, so every fault is caught by the
same example as before, no later. Likewise, once one case of a parametrised test has failed,
its later cases are skipped: the fault is caught by then.
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


# test function name -> the case that failed first
_FAILED: dict[str, str] = {}


def _function(nodeid: str) -> str:
    return nodeid.split("::")[-1].split("[")[0]


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    """A fault is caught when the test meant to catch it fails: one failing case of a
    parametrised test is that proof, and the cases after it would only wait out the same
    timeouts again (five suffixes waiting for a decision that never comes took 16 s)."""
    first = _FAILED.get(_function(item.nodeid))
    if first is not None:
        pytest.skip(f"fault run: {first} failed already, which is the proof")


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    if report.failed:
        _FAILED.setdefault(_function(report.nodeid), report.nodeid)
