"""Loading a folder of schema documents, and the errors that name the bad file."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from conformance.contract.schemas import BASE_URI, SchemaLoadError, SchemaRegistry


def _write(root: Path, name: str, document: object) -> Path:
    path = root / f"{name}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(document) if not isinstance(document, str) else document)
    return path


def _doc(name: str, **body: Any) -> dict[str, Any]:
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": f"{BASE_URI}{name}.json",
        "title": name,
        "description": "§0 test",
        **body,
    }


def test_a_small_folder_loads_with_relative_refs(tmp_path: Path) -> None:
    _write(tmp_path, "common", _doc("common", **{"$defs": {"N": {"type": "integer"}}}))
    _write(
        tmp_path,
        "sub/thing",
        _doc("sub/thing", properties={"n": {"$ref": "../common.json#/$defs/N"}}),
    )
    loaded = SchemaRegistry.load(tmp_path)
    assert loaded.names() == ["common", "sub/thing"]
    assert [v.path for v in loaded.violations("sub/thing", {"n": "x"})] == ["n"]


@pytest.mark.parametrize(
    ("content", "match"),
    [
        ("{not json", "cannot be read as JSON"),
        ([1, 2], "does not hold a JSON object"),
        (_doc("broken", type=5), "not a valid JSON Schema 2020-12 document"),
        ({**_doc("broken"), "$id": BASE_URI + "elsewhere.json"}, "expected"),
        (_doc("broken", properties={"a": {"$ref": "missing.json#/$defs/X"}}), "does not resolve"),
        (_doc("broken", properties={"a": {"$ref": "#/$defs/Nope"}}), "does not resolve"),
    ],
    ids=["bad-json", "not-object", "bad-schema", "wrong-id", "missing-document", "missing-def"],
)
def test_bad_documents_are_reported_with_their_file(
    tmp_path: Path, content: object, match: str
) -> None:
    path = _write(tmp_path, "broken", content)
    with pytest.raises(SchemaLoadError, match=match) as caught:
        SchemaRegistry.load(tmp_path)
    assert str(path) in str(caught.value)


def test_an_empty_folder_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(SchemaLoadError, match="no schema documents"):
        SchemaRegistry.load(tmp_path)
