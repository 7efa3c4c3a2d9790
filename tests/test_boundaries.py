"""The suite and the reference never import each other (DESIGN.md, Boundaries)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def imported_packages(package: str) -> dict[str, set[str]]:
    """file -> top-level packages it imports, for every module of ``package``."""
    found: dict[str, set[str]] = {}
    for path in sorted((ROOT / package).rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        names: set[str] = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                names |= {alias.name.split(".")[0] for alias in node.names}
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names.add(node.module.split(".")[0])
        found[str(path.relative_to(ROOT))] = names
    return found


@pytest.mark.parametrize(("package", "forbidden"), [("conformance", "reference"),
                                                   ("reference", "conformance")])  # fmt: skip
def test_packages_do_not_import_each_other(package, forbidden):
    offenders = [f for f, names in imported_packages(package).items() if forbidden in names]
    assert not offenders, f"{package} imports {forbidden} in {offenders}"
