"""How much of the self-test suite a run takes: CI's tier by default, everything with
``SELFTEST_THOROUGH=1``.

CI has a budget of minutes on two cores. A few self-tests repeat, at several times the
cost, what cheaper ones in CI already prove: the whole suite against the variant reference
in every platform mode, serially and without pagination settings (CI holds the suite's side
of its choices in unit tests: ``tests/test_error_codes.py``, ``tests/test_list_pages.py``),
interrupt moments another case already
reaches the same way, the fuzzer's walk of the links (CI fuzzes every operation), and the
whole suite against forged copies of deliveries (CI runs the webhooks part against them),
the reference's own check of each fault mode (CI proves each one by the suite catching
it), and one whole certification (CI holds certify and verify in narrower runs). They are
marked ``thorough`` and deselected, never skipped, unless the variable is set: a run says
how many it left out. The name is not ``CONFORMANCE_*``: the conformance runs a self-test
starts inherit its environment, and the kit refuses a setting it does not know.
"""

from __future__ import annotations

import os

import pytest

__all__ = ["THOROUGH_ENV", "deselect_thorough", "long_tests_first", "thorough"]

THOROUGH_ENV = "SELFTEST_THOROUGH"


def thorough() -> bool:
    """Whether this run takes the thorough tier too (``SELFTEST_THOROUGH=1``)."""
    return os.environ.get(THOROUGH_ENV, "") not in ("", "0")


def deselect_thorough(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Leave out the tests marked ``thorough`` unless the thorough tier is asked for."""
    if thorough():
        return
    left_out = [item for item in items if item.get_closest_marker("thorough") is not None]
    if left_out:
        config.hook.pytest_deselected(items=left_out)
        items[:] = [item for item in items if item.get_closest_marker("thorough") is None]


def long_tests_first(items: list[pytest.Item]) -> None:
    """Put the tests marked ``long(seconds)`` first, the longest first, keeping the order
    otherwise: xdist hands tests out in this order, and a long test collected last would
    run alone at the end of the run."""

    def measured(item: pytest.Item) -> float:
        mark = item.get_closest_marker("long")
        return -float(mark.args[0]) if mark is not None and mark.args else 0.0

    items.sort(key=measured)
