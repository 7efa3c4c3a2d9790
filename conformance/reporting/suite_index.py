"""The suite's tests, read from the source of its modules without importing them.

A run collects only the parts it is given (``--parts``), yet a setting that names a test (a
waiver's ``test``) must be checked against the whole suite: a test of a part this run does
not collect is still a test. Reading the modules' syntax trees finds every test function
(and ``Test*`` class method) in a few milliseconds per module, with no import side effects.
``tests/test_suite_catalogue.py`` holds that this index is what importing the modules finds.
"""

from __future__ import annotations

import ast
import difflib
from functools import cache
from pathlib import Path

from conformance.ground.datafiles import SUITES_DIR

__all__ = ["closest_test_ids", "names_a_suite_test", "suite_test_ids"]


@cache
def suite_test_ids(root: Path = SUITES_DIR) -> frozenset[str]:
    """Every test of the suites as ``<part>/<module>.py::<name>`` (``::<Class>::<name>`` for
    a method), without parameters."""
    found: set[str] = set()
    for path in sorted(root.rglob("test_*.py")):
        module = path.relative_to(root).as_posix()
        body = ast.parse(path.read_bytes(), filename=str(path)).body
        found.update(f"{module}::{name}" for name in _test_names(body))
        for node in body:
            if isinstance(node, ast.ClassDef) and node.name.startswith("Test"):
                found.update(f"{module}::{node.name}::{name}" for name in _test_names(node.body))
    return frozenset(found)


def _test_names(body: list[ast.stmt]) -> list[str]:
    return [
        node.name
        for node in body
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
        and node.name.startswith("test_")
    ]


def names_a_suite_test(name: str, ids: frozenset[str] | None = None) -> bool:
    """Whether ``name`` (as a waiver gives it: a node id, or its end from any ``/``, with or
    without ``[parameters]``) names a test of the suite."""
    bare = name.strip().split("[", 1)[0]
    for test_id in suite_test_ids() if ids is None else ids:
        full = f"conformance/suites/{test_id}"
        if bare in (test_id, full) or full.endswith("/" + bare):
            return True
    return False


def closest_test_ids(name: str, count: int = 2) -> list[str]:
    """The suite's test ids most like ``name`` (for a usage error's suggestion): by the test's
    own name first, then by the whole id."""
    bare = name.strip().split("[", 1)[0]
    ids = sorted(suite_test_ids())
    by_name: dict[str, list[str]] = {}
    for test_id in ids:
        by_name.setdefault(test_id.rsplit("::", 1)[-1], []).append(test_id)
    names = difflib.get_close_matches(bare.rsplit("::", 1)[-1], list(by_name), n=count)
    close = [test_id for found in names for test_id in by_name[found]]
    return close[:count] or difflib.get_close_matches(bare, ids, n=count)
