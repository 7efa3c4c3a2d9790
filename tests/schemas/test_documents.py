"""Every schema document: a valid 2020-12 schema with a title and a clause, open to extra
properties, loaded by the registry, and right about its valid and invalid examples."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from conformance.contract.schemas import BASE_URI, SchemaRegistry
from conformance.ground.datafiles import schemas_dir

from .invalid_examples import INVALID, paths_and_keywords
from .valid_examples import COMMON_VALID, VALID

SCHEMAS_ROOT = schemas_dir()
SCHEMA_FILES = sorted(SCHEMAS_ROOT.rglob("*.json"))


@pytest.mark.parametrize(
    "path", SCHEMA_FILES, ids=lambda p: p.relative_to(SCHEMAS_ROOT).with_suffix("").as_posix()
)
def test_every_document_is_a_valid_2020_12_schema_with_title_and_clause(path: Path) -> None:
    document = json.loads(path.read_text(encoding="utf-8"))
    Draft202012Validator.check_schema(document)
    assert document["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert document["$id"] == BASE_URI + path.relative_to(SCHEMAS_ROOT).as_posix()
    assert document["title"]
    assert "§" in document["description"]


def test_no_document_forbids_additional_properties() -> None:
    def walk(node: object) -> None:
        if isinstance(node, dict):
            assert node.get("additionalProperties") is not False
            assert node.get("unevaluatedProperties") is not False
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for item in node:
                walk(item)

    for path in SCHEMA_FILES:
        walk(json.loads(path.read_text(encoding="utf-8")))


def test_registry_loads_every_document(registry: SchemaRegistry) -> None:
    expected = {p.relative_to(registry.directory).with_suffix("").as_posix() for p in SCHEMA_FILES}
    assert set(registry.names()) == expected
    assert registry.names() == sorted(expected)


def test_every_document_has_valid_samples(registry: SchemaRegistry) -> None:
    assert set(VALID) == set(registry.names()) - {"common"}


def test_every_common_definition_has_a_sample(registry: SchemaRegistry) -> None:
    assert set(COMMON_VALID) == set(registry.document("common")["$defs"])


@pytest.mark.parametrize(
    ("name", "index"), [(n, i) for n, items in VALID.items() for i in range(len(items))]
)
def test_valid_examples_pass(registry: SchemaRegistry, name: str, index: int) -> None:
    assert registry.violations(name, VALID[name][index]) == []


@pytest.mark.parametrize("definition", sorted(COMMON_VALID))
def test_common_definitions_accept_their_sample(registry: SchemaRegistry, definition: str) -> None:
    assert registry.violations(f"common#/$defs/{definition}", COMMON_VALID[definition]) == []


@pytest.mark.parametrize(
    ("name", "instance", "path", "keyword"),
    INVALID,
    ids=[f"{case[0]}:{case[2]}:{case[3]}:{i}" for i, case in enumerate(INVALID)],
)
def test_invalid_examples_fail_at_the_right_place(
    registry: SchemaRegistry, name: str, instance: Any, path: str, keyword: str
) -> None:
    violations = registry.violations(name, instance)
    assert (path, keyword) in paths_and_keywords(violations), violations
