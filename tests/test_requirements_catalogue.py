"""The requirements catalogue: the shipped file is valid, names what other code relies on,
cites real headings of the interface, and the loader refuses broken files."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path
from typing import Any

import pytest
import yaml

from conformance.contract.requirements import (
    AREAS,
    PARTS,
    RECEIVER_AREA,
    TESTABILITY,
    Catalogue,
    CatalogueError,
    Requirement,
    default_catalogue,
    load_catalogue,
    receiver_catalogue,
)

SPEC = Path(__file__).parents[2] / "shared" / "spec" / "interface.md"

# Ids other code names, with the part (None: any part) and area they must have.
MANDATORY: dict[str, tuple[str | None, str]] = {
    "COMMON-ID-FORMAT": ("resources", "common"),
    "COMMON-TIMESTAMP-UTC": ("resources", "common"),
    "COMMON-MONEY-INTEGER": ("resources", "common"),
    "COMMON-CURRENCY-DECIMALS": ("resources", "common"),
    "COMMON-JSON-BODIES": ("resources", "common"),
    "CONFIG-GET-RESOURCE": ("endpoints", "config"),
    "CONFIG-RESOURCE-FIELDS": ("resources", "config"),
    "CONFIG-PATCH-FIELDS": ("endpoints", "config"),
    "CONFIG-WEBHOOK-HTTPS": (None, "config"),
    "CONFIG-CURRENCY-CODE-ISO4217": (None, "config"),
    "CONFIG-CURRENCY-AMOUNTS-REQUIRED": (None, "config"),
    "CONFIG-COUNTERPARTY-FIELDS": (None, "config"),
    "CONFIG-PROVIDER-FIELDS-READONLY": (None, "config"),
    "CONFIG-FEES-USD-ONLY": ("limits", "config"),
    "CONFIG-UMA-DOMAIN-DEFAULT": (None, "config"),
    "CONFIG-PER-PLATFORM": (None, "config"),
    "AUTH-BASIC-REQUIRED": ("auth", "auth-basic"),
    "AUTH-BASIC-MALFORMED": ("auth", "auth-basic"),
    "AUTH-BASIC-WRONG-SECRET": ("auth", "auth-basic"),
    "AUTH-ENVIRONMENT-BINDING": ("auth", "auth-basic"),
    "AUTH-401-REASON": ("auth", "auth-basic"),
    "VERSION-BASE-PATH": ("versioning", "versioning"),
    "VERSION-DESCRIPTION-REPORTS-VERSION": ("versioning", "versioning"),
    "ERROR-400-ENVELOPE": ("errors", "errors-core"),
    "ERROR-400-ALL-FIELDS": ("errors", "errors-core"),
    "WEBHOOK-SIGNATURE": ("webhooks", "webhooks-core"),
    "WEBHOOK-ENVELOPE": ("webhooks", "webhooks-core"),
    "WEBHOOK-TEST-EVENT": ("webhooks", "webhooks-core"),
    "WEBHOOK-TEST-TRIGGER": ("webhooks", "webhooks-core"),
    "WEBHOOK-ENDPOINT-CONFIG": ("webhooks", "webhooks-core"),
    "QUOTE-EXECUTE-SCA-409": ("transitions", "quotes-or-sca"),
}


@pytest.fixture(scope="module")
def catalogue() -> Catalogue:
    return default_catalogue()


# --- the shipped catalogue ------------------------------------------------------------


def test_shipped_catalogue_loads_and_is_cached(catalogue: Catalogue) -> None:
    assert default_catalogue() is catalogue
    assert len(catalogue) >= 200
    assert len(set(catalogue.ids())) == len(catalogue)
    assert [r.id for r in catalogue] == list(catalogue.ids())


@pytest.mark.parametrize("requirement_id", sorted(MANDATORY))
def test_mandatory_id_exists_with_its_part(catalogue: Catalogue, requirement_id: str) -> None:
    assert requirement_id in catalogue, f"{requirement_id} is named by other code"
    requirement = catalogue.get(requirement_id)
    part, area = MANDATORY[requirement_id]
    if part is not None:
        assert requirement.part == part
    if area == "quotes-or-sca":
        assert requirement.area in {"quotes", "sca"}
    else:
        assert requirement.area == area


def test_version_description_is_not_testable(catalogue: Catalogue) -> None:
    requirement = catalogue.get("VERSION-DESCRIPTION-REPORTS-VERSION")
    assert requirement.testability == "not-testable"
    assert requirement.reason


def test_every_part_and_area_has_entries(catalogue: Catalogue) -> None:
    by_part = catalogue.by_part()
    assert tuple(by_part) == PARTS
    assert [part for part, entries in by_part.items() if not entries] == []
    assert sum(len(entries) for entries in by_part.values()) == len(catalogue)
    by_area = catalogue.by_area()
    assert tuple(by_area) == AREAS
    # the platform's own duties are checked by `conformance receiver`, from their catalogue
    assert [area for area, entries in by_area.items() if not entries] == [RECEIVER_AREA]
    assert {r.area for r in receiver_catalogue()} == {RECEIVER_AREA}


def test_reasons_exactly_where_testability_requires(catalogue: Catalogue) -> None:
    for requirement in catalogue:
        assert (requirement.reason is None) == (requirement.testability == "testable"), (
            requirement.id
        )
        assert requirement.needs_test == (requirement.testability in {"testable", "needs-adapter"})


def test_catalogue_lookup(catalogue: Catalogue) -> None:
    requirement = catalogue.get("QUOTE-EXECUTE-SCA-409")
    assert isinstance(requirement, Requirement)
    assert requirement.clause.startswith("§3 Quote and transaction: ")
    assert "NO-SUCH-ID" not in catalogue
    with pytest.raises(KeyError, match="did you mean QUOTE-EXECUTE-SCA-409"):
        catalogue.get("QUOTE-EXECUTE-SCA-490")
    with pytest.raises(dataclasses.FrozenInstanceError):
        requirement.part = "errors"  # type: ignore[misc]


# --- citations against the interface --------------------------------------------------


def _spec_sections(text: str) -> tuple[set[str], set[str]]:
    """All citable sections of the interface, and those without sub-headings (leaves).

    ``## N. Title`` gives ``§N Title``; ``### Sub`` under part N gives ``§N Sub``; the
    ``Conventions:`` paragraph before part 1 gives ``§0 Conventions``.
    """
    sections: set[str] = set()
    parents: set[str] = set()
    part: str | None = None
    part_section = ""
    for line in text.splitlines():
        if line.startswith("Conventions:") and part is None:
            sections.add("§0 Conventions")
        elif match := re.match(r"^## (\d+)\. (.+?)\s*$", line):
            part = match.group(1)
            part_section = f"§{part} {match.group(2)}"
            sections.add(part_section)
        elif (match := re.match(r"^### (.+?)\s*$", line)) and part is not None:
            sections.add(f"§{part} {match.group(1)}")
            parents.add(part_section)
    return sections, sections - parents


@pytest.fixture(scope="module")
def spec_sections() -> tuple[set[str], set[str]]:
    if not SPEC.is_file():
        pytest.skip(f"the interface description is not at {SPEC} (outside this checkout)")
    return _spec_sections(SPEC.read_text(encoding="utf-8"))


def test_every_cited_section_is_a_heading_of_the_interface(
    catalogue: Catalogue, spec_sections: tuple[set[str], set[str]]
) -> None:
    sections, _ = spec_sections
    unknown = sorted({f"{r.id}: {r.section}" for r in catalogue if r.section not in sections})
    assert unknown == [], f"sections not found in {SPEC.name}"


def test_every_leaf_section_of_the_interface_is_cited(
    catalogue: Catalogue, spec_sections: tuple[set[str], set[str]]
) -> None:
    _, leaves = spec_sections
    cited = {r.section for r in catalogue}
    assert sorted(leaves - cited) == []


# --- the loader refuses broken files --------------------------------------------------


def _entry(**changes: Any) -> dict[str, Any]:
    entry: dict[str, Any] = {
        "id": "QUOTE-EXAMPLE-ONE",
        "section": "§3 Quote and transaction",
        "statement": "An example statement.",
        "part": "transitions",
        "area": "quotes",
        "testability": "testable",
    }
    entry.update(changes)
    return {key: value for key, value in entry.items() if value is not None}


def _write(tmp_path: Path, content: Any) -> Path:
    path = tmp_path / "requirements.yaml"
    path.write_text(yaml.safe_dump(content, allow_unicode=True, sort_keys=False), "utf-8")
    return path


def test_loader_accepts_a_minimal_valid_file(tmp_path: Path) -> None:
    reason = "Needs a trigger the interface hides."
    path = _write(
        tmp_path,
        [_entry(), _entry(id="QUOTE-EXAMPLE-TWO", testability="needs-adapter", reason=reason)],
    )
    loaded = load_catalogue(path)
    assert loaded.ids() == ("QUOTE-EXAMPLE-ONE", "QUOTE-EXAMPLE-TWO")
    assert loaded.get("QUOTE-EXAMPLE-TWO").reason == reason
    assert loaded.get("QUOTE-EXAMPLE-ONE").reason is None


def test_loader_rejects_a_duplicate_id(tmp_path: Path) -> None:
    path = _write(tmp_path, [_entry(), _entry(statement="Another statement.")])
    with pytest.raises(CatalogueError, match="duplicate id") as excinfo:
        load_catalogue(path)
    assert excinfo.value.requirement_id == "QUOTE-EXAMPLE-ONE"
    assert str(path) in str(excinfo.value)


def test_loader_rejects_a_bad_part(tmp_path: Path) -> None:
    with pytest.raises(CatalogueError, match="unknown part 'behaviour'") as excinfo:
        load_catalogue(_write(tmp_path, [_entry(part="behaviour")]))
    assert excinfo.value.requirement_id == "QUOTE-EXAMPLE-ONE"


@pytest.mark.parametrize("testability", [t for t in TESTABILITY if t != "testable"])
def test_loader_rejects_a_missing_reason(tmp_path: Path, testability: str) -> None:
    with pytest.raises(CatalogueError, match="needs a non-empty 'reason'") as excinfo:
        load_catalogue(_write(tmp_path, [_entry(testability=testability)]))
    assert excinfo.value.requirement_id == "QUOTE-EXAMPLE-ONE"


@pytest.mark.parametrize(
    ("changes", "problem"),
    [
        ({"id": "quote-lower"}, "id does not match"),
        ({"id": "QUOTE"}, "id does not match"),
        ({"id": "QUOTE--DOUBLE"}, "id does not match"),
        ({"area": "payments"}, "unknown area 'payments'"),
        ({"testability": "maybe"}, "unknown testability 'maybe'"),
        ({"section": "3 Quote and transaction"}, "must start with '§'"),
        ({"statement": "   "}, "'statement' must be a non-empty string"),
        ({"statement": None}, "'statement' must be a non-empty string"),
        ({"reason": "Not wanted here."}, "a testable requirement carries no 'reason'"),
        ({"testability": "not-testable", "reason": ""}, "needs a non-empty 'reason'"),
        ({"notes": "typo of reason"}, "unknown key"),
    ],
)
def test_loader_rejects_a_broken_entry(
    tmp_path: Path, changes: dict[str, Any], problem: str
) -> None:
    with pytest.raises(CatalogueError, match=re.escape(problem)):
        load_catalogue(_write(tmp_path, [_entry(**changes)]))


def test_loader_names_an_entry_without_id_by_position(tmp_path: Path) -> None:
    with pytest.raises(CatalogueError) as excinfo:
        load_catalogue(_write(tmp_path, [_entry(), _entry(id=None)]))
    assert excinfo.value.requirement_id == "entry #2"


@pytest.mark.parametrize("content", [{"id": "QUOTE-EXAMPLE-ONE"}, "text", None])
def test_loader_rejects_a_file_that_is_not_a_list(tmp_path: Path, content: Any) -> None:
    with pytest.raises(CatalogueError, match="must be a list of entries"):
        load_catalogue(_write(tmp_path, content))


def test_loader_reports_unreadable_and_invalid_files(tmp_path: Path) -> None:
    with pytest.raises(CatalogueError, match="cannot be read"):
        load_catalogue(tmp_path / "absent.yaml")
    broken = tmp_path / "broken.yaml"
    broken.write_text("- id: [unclosed\n", "utf-8")
    with pytest.raises(CatalogueError, match="not valid YAML"):
        load_catalogue(broken)
