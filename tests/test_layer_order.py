"""Imports go one way, down: the floors of each package, named, and held (ARCHITECTURE.md).

Each package is a list of floors, bottom first; a floor lists its folders in order. A module
may import its own folder, any folder on a lower floor, and a folder listed before its own on
the same floor; anything else is an upward import. Every import counts, wherever it is written
(inside a function or under ``TYPE_CHECKING`` too): a lazy import that goes up is still a loop.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = "(package)"  # the package's own ``__init__.py``
MAIN = "(main)"  # the package's ``__main__.py``

FLOORS: dict[str, list[tuple[str, list[str]]]] = {
    "conformance": [
        ("ground: profile and options, hook specs, data files, locks, secrets",
         [PACKAGE, "ground"]),
        ("contract and exchange: what the interface states, how the target is reached",
         ["contract", "exchange"]),
        ("areas: how the suite reaches and checks each area of the interface",
         ["webhooks", "configuration", "customers", "payments", "accounts", "cards", "sca",
          "wallet", "agents", "invitations"]),
        ("suites and reports: the tests (the receiver check's too), and what a run writes",
         ["suites", "receiver_suite", "reporting"]),
        ("run: the plugin, its fixtures, the commands", ["run"]),
    ],
    "reference": [
        ("kernel: database, errors, routing, validation, clock, seams, settings",
         [PACKAGE, "kernel"]),
        ("areas: how the sandbox implements each area of the interface",
         ["configuration", "webhooks", "customers", "accounts", "cards", "wallet", "payments",
          "sca", "agents", "invitations"]),
        ("faults: what can be made to break", ["faults"]),
        ("client check: what a platform's client is judged on", ["client_check"]),
        ("assembly: the application and the serve command", ["server", MAIN]),
        ("adapter: the suite's adapter hooks, over HTTP", ["adapter"]),
    ],
}  # fmt: skip


def folder_of(package: str, module: str) -> str | None:
    """The folder key of a dotted module name, or None outside ``package``."""
    parts = module.split(".")
    if parts[0] != package:
        return None
    if len(parts) == 1:
        return PACKAGE
    return MAIN if parts[1] == "__main__" else parts[1]


def module_name(root: Path, path: Path) -> str:
    """The dotted name of the module at ``path`` (a package is named by its folder)."""
    parts = list(path.relative_to(root).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imported_names(path: Path, name: str) -> list[str]:
    """Every module ``path`` imports, relative imports resolved against ``name``."""
    found: list[str] = []
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                stem = ".".join(base + ([node.module] if node.module else []))
            else:
                stem = node.module or ""
            found.append(stem)
            found += [f"{stem}.{alias.name}" for alias in node.names]
    return found


def upward_imports(root: Path, package: str, floors: list[tuple[str, list[str]]]) -> list[str]:
    """Each import in ``root/package`` that goes up the floors, as a line naming both ends."""
    rank = {folder: i for i, folder in enumerate(f for _, folders in floors for f in folders)}
    floor_of = {folder: floor.split(":")[0] for floor, folders in floors for folder in folders}
    offenders: list[str] = []
    for path in sorted((root / package).rglob("*.py")):
        name = module_name(root, path)
        here = folder_of(package, name)
        assert here in rank, f"{path.relative_to(root)}: folder {here!r} is on no floor"
        upward: dict[str, str] = {}  # folder -> the first module of it imported
        for imported in imported_names(path, name):
            there = folder_of(package, imported)
            # ``from kit import x`` is judged by x: a folder of kit, or a name in kit itself
            if there in rank and rank[there] > rank[here] and imported != package:
                upward.setdefault(there, imported)
        offenders += [
            f"{path.relative_to(root)} imports {imported}: {here} ({floor_of[here]}) "
            f"may not import {there} ({floor_of[there]})"
            for there, imported in upward.items()
        ]
    return offenders


@pytest.mark.parametrize("package", sorted(FLOORS))
def test_every_folder_is_on_exactly_one_floor(package):
    folders = [f for _, names in FLOORS[package] for f in names]
    assert len(folders) == len(set(folders)), f"{package}: a folder is on two floors"
    present = {p.name for p in (ROOT / package).iterdir() if (p / "__init__.py").is_file()}
    assert present == set(folders) - {PACKAGE, MAIN}, (
        f"{package}/: on no floor {sorted(present - set(folders))}, "
        f"no such folder {sorted(set(folders) - present - {PACKAGE, MAIN})}"
    )


@pytest.mark.parametrize("package", sorted(FLOORS))
def test_imports_go_down_the_floors(package):
    offenders = upward_imports(ROOT, package, FLOORS[package])
    assert not offenders, f"{len(offenders)} upward imports in {package}:\n" + "\n".join(offenders)


def test_an_upward_import_is_caught(tmp_path):
    """The check can fail: a ground module that imports the run, in a package made for it."""
    package = tmp_path / "kit"
    for folder, text in {
        "ground": "from kit.run.plugin import main\n",
        "run": "from kit.ground import settings\nfrom . import plugin\n",
    }.items():
        (package / folder).mkdir(parents=True)
        (package / folder / "__init__.py").write_text(text)
        (package / folder / "plugin.py").write_text("from ..ground import settings\n")
    (package / "__init__.py").write_text("")
    floors = [("ground", [PACKAGE, "ground"]), ("run", ["run"])]
    offenders = upward_imports(tmp_path, "kit", floors)
    assert offenders == [
        "kit/ground/__init__.py imports kit.run.plugin: ground (ground) may not import run (run)"
    ], offenders
