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


def _imported_modules(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module)
            names |= {f"{node.module}.{alias.name}" for alias in node.names}
    return names


def test_the_domain_never_imports_the_fault_layer():
    """Only the fault layer itself and the composition root reach ``reference.faults``."""
    allowed = {ROOT / "reference" / "server" / "cli.py"}
    offenders = [
        str(path.relative_to(ROOT))
        for path in sorted((ROOT / "reference").rglob("*.py"))
        if "faults" not in path.relative_to(ROOT / "reference").parts[:1]
        and path not in allowed
        and any(name.startswith("reference.faults") for name in _imported_modules(path))
    ]
    assert not offenders, f"domain modules import the fault layer: {offenders}"


def test_the_domain_never_names_a_fault_mode():
    """Fault names live in ``reference/faults/`` only: the domain passes values through seams."""
    from reference.faults import FAULTS

    offenders = []
    for path in sorted((ROOT / "reference").rglob("*.py")):
        if path.relative_to(ROOT / "reference").parts[0] == "faults":
            continue
        text = path.read_text(encoding="utf-8")
        named = [name for name in FAULTS if f'"{name}"' in text]
        named += ["has_fault"] if "has_fault" in text else []
        if named:
            offenders.append(f"{path.relative_to(ROOT)}: {named[:3]}")
    assert not offenders, "\n".join(offenders)


AREAS = {"configuration", "customers", "accounts", "payments", "webhooks", "sca", "wallet",
         "cards", "agents", "invitations"}  # fmt: skip
# the folders that are floors, not areas of the interface (ARCHITECTURE.md, "Floors")
LAYERS = {
    "conformance": {
        "ground",
        "contract",
        "exchange",
        "suites",
        "receiver_suite",
        "reporting",
        "run",
    },
    "reference": {"kernel", "server", "adapter", "faults", "client_check"},
}


def test_folders_are_named_by_the_same_areas_on_both_sides():
    """Each package holds its areas and its named layers, nothing else: no flat module at the
    top, no area on one side only."""
    for package, layers in LAYERS.items():
        top = ROOT / package
        folders = {p.name for p in top.iterdir() if p.is_dir() and (p / "__init__.py").is_file()}
        assert folders - layers == AREAS, f"{package}/: {sorted(folders ^ (AREAS | layers))}"
        modules = {p.name for p in top.glob("*.py")}
        assert modules <= {"__init__.py", "__main__.py"}, f"{package}/: {sorted(modules)}"
    fault_modules = {path.stem for path in (ROOT / "reference" / "faults").glob("*.py")}
    assert fault_modules >= AREAS, sorted(AREAS - fault_modules)
