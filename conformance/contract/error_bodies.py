"""Reading error bodies (§7 Errors) the way the interface allows them to vary.

The interface fixes ``details.errors[]`` with a machine-readable constraint per field and a
``reason`` on 401s, but not the names of the keys inside an entry nor the path syntax, nor
where a 401's ``reason`` sits. These helpers accept every reasonable placement.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

__all__ = [
    "FieldError",
    "FieldPath",
    "field_errors",
    "names_field",
    "parse_path",
    "reason_of",
    "unnamed_fields",
]

FieldPath = tuple[str | int, ...]

FIELD_KEYS = ("field", "path", "pointer", "name", "property")
CONSTRAINT_KEYS = ("constraint", "code", "rule", "type")
_TOKEN = re.compile(r"[^.\[\]/]+")


@dataclass(frozen=True, slots=True)
class FieldError:
    """One entry of ``details.errors[]`` as the target sent it."""

    path: FieldPath | None
    raw_field: object
    constraint: object
    entry: Any


def parse_path(text: str) -> FieldPath:
    """``a[0].b``, ``a.0.b``, ``/a/0/b`` and ``$.a[0].b`` all become ``("a", 0, "b")``."""
    text = text.strip()
    if text.startswith("$"):
        text = text[1:]
    tokens: list[str | int] = []
    for token in _TOKEN.findall(text):
        token = token.strip().strip("'\"")
        if not token:
            continue
        tokens.append(int(token) if token.isdigit() else token)
    if tokens and tokens[0] == "body":  # some frameworks prefix the request part
        tokens = tokens[1:]
    return tuple(tokens)


def field_errors(body: Any) -> list[FieldError]:
    """The entries of ``details.errors[]`` (empty when the body has none)."""
    details = body.get("details") if isinstance(body, dict) else None
    entries = details.get("errors") if isinstance(details, dict) else None
    if not isinstance(entries, list):
        return []
    errors = []
    for entry in entries:
        if not isinstance(entry, dict):
            errors.append(FieldError(None, None, None, entry))
            continue
        raw = next((entry[k] for k in FIELD_KEYS if isinstance(entry.get(k), str | list)), None)
        path: FieldPath | None = None
        if isinstance(raw, str):
            path = parse_path(raw)
        elif isinstance(raw, list):
            path = tuple(int(p) if str(p).isdigit() else str(p) for p in raw)
        constraint = next((entry[k] for k in CONSTRAINT_KEYS if entry.get(k)), None)
        errors.append(FieldError(path, raw, constraint, entry))
    return errors


def names_field(named: FieldPath, expected: FieldPath) -> bool:
    """Whether an error at ``named`` names the invalid field ``expected``.

    The same path, a path inside it, or its immediate parent object all count.
    """
    if named == expected or named[: len(expected)] == expected:
        return True
    return len(expected) > 1 and named == expected[:-1]


def unnamed_fields(body: Any, expected: Iterable[FieldPath]) -> list[FieldPath]:
    """The invalid fields no entry of ``details.errors[]`` names."""
    named = [e.path for e in field_errors(body) if e.path is not None]
    return [path for path in expected if not any(names_field(n, path) for n in named)]


def reason_of(body: Any) -> object:
    """A 401's ``reason``: at the top level or inside ``details``."""
    if not isinstance(body, dict):
        return None
    if body.get("reason"):
        return body["reason"]
    details = body.get("details")
    return details.get("reason") if isinstance(details, dict) else None
