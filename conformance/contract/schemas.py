"""The schema registry: every JSON Schema document of ``schemas/``, loaded and checked once.

Documents are JSON Schema 2020-12, identified by ``$id`` under :data:`BASE_URI` and
cross-referenced by relative ``$ref``. A schema is named by its path below ``schemas/``
without ``.json`` (``"quote"``, ``"requests/quote-create"``, ``"errors/error-400"``), by that
path with ``.json``, or by its full ``$id``; any of these may carry a JSON-pointer fragment
(``"common#/$defs/Timestamp"``) to reach a definition inside a document.

Validation results are :class:`SchemaViolation` values whose ``path`` reads like code
(``supportedCurrencies[0].minAmount``, ``$`` for the whole body), so failure messages can
name the offending field directly.
"""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any
from urllib.parse import urldefrag

from jsonschema import Draft202012Validator
from jsonschema.exceptions import SchemaError, ValidationError, best_match
from referencing import Registry, Resource
from referencing.exceptions import Unresolvable
from referencing.jsonschema import DRAFT202012

from conformance import INTERFACE_VERSION
from conformance.ground.datafiles import schemas_dir

try:  # a compiled validator: the fast "valid" answer (see SchemaRegistry.known_valid)
    import jsonschema_rs as _compiled
except ImportError:  # pragma: no cover - a declared dependency; without it all is python
    _compiled = None  # type: ignore[assignment]

__all__ = [
    "BASE_URI",
    "SchemaLoadError",
    "SchemaRegistry",
    "SchemaViolation",
    "UnknownSchemaError",
    "default_registry",
    "format_path",
]

BASE_URI = f"https://schemas.gpsi-conformance.invalid/{INTERFACE_VERSION}/"
"""Every document's ``$id`` is this prefix followed by its path below ``schemas/``."""

_MAX_VALUE_CHARS = 80
_MAX_MESSAGE_CHARS = 300
_IDENTIFIER = re.compile(r"^[A-Za-z_$][A-Za-z0-9_$-]*$")


class SchemaLoadError(Exception):
    """A document of ``schemas/`` cannot be read, is not a valid schema, or has a bad ``$ref``."""


class UnknownSchemaError(KeyError):
    """No loaded document has the requested name or ``$id``."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else "unknown schema"


@dataclass(frozen=True, slots=True)
class SchemaViolation:
    """One way an instance breaks a schema.

    ``path`` locates the offending value (``$`` is the whole instance), ``keyword`` is the
    JSON Schema keyword that failed, ``message`` is short and shows the offending value
    (truncated), and ``schema_title`` is the title of the document validated against.
    ``location`` holds the same place as keys and indexes, so a caller validating the items
    of a list can render ``format_path((index, *violation.location))``.
    """

    path: str
    keyword: str
    message: str
    schema_title: str
    location: tuple[str | int, ...] = ()

    def __str__(self) -> str:
        return f"{self.path}: {self.message}"


def format_path(parts: Iterable[str | int]) -> str:
    """Render a JSON location as ``a.b[0].c``.

    The empty location is ``$``; a location that starts with an index or an unusual key
    starts with ``$`` too (``$[0].url``, ``$["a b"]``).
    """
    text = ""
    for part in parts:
        if isinstance(part, int):
            text += f"[{part}]"
        elif _IDENTIFIER.match(part):
            text += f".{part}" if text else part
        else:
            text += f"[{json.dumps(part)}]"
    if not text:
        return "$"
    return "$" + text if text.startswith("[") else text


def _short(value: object) -> str:
    text = json.dumps(value, ensure_ascii=False, default=repr)
    if len(text) > _MAX_VALUE_CHARS:
        text = text[: _MAX_VALUE_CHARS - 3] + "..."
    return text


def _is_type_mismatch(error: ValidationError) -> bool:
    """A branch that rejects the value's type outright (``null`` of a nullable field, say)."""
    return error.validator == "type" and not error.relative_path


def _required_alternatives(error: ValidationError) -> list[str] | None:
    """For ``anyOf`` of ``{"required": [key]}`` branches, the keys of which one is needed."""
    if error.validator not in {"anyOf", "oneOf"} or not isinstance(error.validator_value, list):
        return None
    keys: list[str] = []
    for branch in error.validator_value:
        if not (isinstance(branch, Mapping) and set(branch) == {"required"}):
            return None
        keys.extend(str(key) for key in branch["required"])
    return keys


def _leaf(error: ValidationError) -> ValidationError:
    """Follow ``anyOf``/``oneOf`` contexts down to the most relevant underlying error.

    Branches that reject the value's type outright are set aside first, so a nullable field
    reports why its value is not the non-null shape, and an array-or-object body reports
    the errors of the branch of its own type.
    """
    while error.context and _required_alternatives(error) is None:
        branches: dict[object, list[ValidationError]] = {}
        for candidate in error.context:
            branch = candidate.schema_path[0] if candidate.schema_path else None
            branches.setdefault(branch, []).append(candidate)
        viable = [
            errors for errors in branches.values() if not any(_is_type_mismatch(e) for e in errors)
        ]
        candidates = [e for errors in viable for e in errors] or list(error.context)
        deeper = best_match(candidates)
        if deeper is None:  # pragma: no cover - best_match only returns None for no errors
            break
        error = deeper
    return error


def _message(error: ValidationError) -> str:
    keyword = str(error.validator)
    value = _short(error.instance)
    schema = error.schema if isinstance(error.schema, Mapping) else {}
    alternatives = _required_alternatives(error)
    if alternatives is not None:
        text = "needs one of the properties " + ", ".join(repr(key) for key in alternatives)
    elif keyword in {"required", "dependentRequired"}:
        text = error.message
    elif keyword == "not":
        excluded = error.validator_value
        if isinstance(excluded, Mapping) and "const" in excluded:
            excluded = excluded["const"]
        elif isinstance(excluded, Mapping) and "enum" in excluded:
            excluded = excluded["enum"]
        if isinstance(excluded, Mapping) and "title" in schema:
            text = f"{value} is not a valid {schema['title']}"
        else:
            text = f"{value} is not allowed here (excluded: {_short(excluded)})"
    elif keyword in {"pattern", "format"} and "title" in schema:
        text = f"{value} is not a valid {schema['title']}"
        examples = schema.get("examples")
        if isinstance(examples, list) and examples:
            text += f" (for example {_short(examples[0])})"
        elif keyword == "pattern":
            text += f" (pattern {error.validator_value})"
    elif keyword in {"anyOf", "oneOf"}:
        text = f"{value} does not match any allowed shape"
    else:
        full = repr(error.instance)
        text = error.message.replace(full, value) if full in error.message else error.message
        if value not in text:
            text = f"{value}: {text}"
    if len(text) > _MAX_MESSAGE_CHARS:
        text = text[: _MAX_MESSAGE_CHARS - 3] + "..."
    return text


def _path_order(error: ValidationError) -> tuple[tuple[int, int, str], ...]:
    return tuple((0, p, "") if isinstance(p, int) else (1, 0, str(p)) for p in error.absolute_path)


def _iter_refs(node: object) -> Iterator[str]:
    if isinstance(node, Mapping):
        for key, value in node.items():
            if key == "$ref" and isinstance(value, str):
                yield value
            elif key not in {"const", "enum", "examples", "default"}:
                yield from _iter_refs(value)
    elif isinstance(node, list):
        for item in node:
            yield from _iter_refs(item)


class SchemaRegistry:
    """All schema documents, their ``referencing`` registry, and cached validators."""

    def __init__(self, documents: Mapping[str, Mapping[str, Any]], directory: Path) -> None:
        """Build from ``{short name: document}``; use :meth:`load` to read a folder."""
        self._directory = directory
        self._documents = dict(documents)
        self._by_id = {str(doc["$id"]): name for name, doc in self._documents.items()}
        resources = [
            (str(doc["$id"]), Resource.from_contents(doc, default_specification=DRAFT202012))
            for doc in self._documents.values()
        ]
        self._registry: Registry[Any] = Registry().with_resources(resources).crawl()
        self._validators: dict[str, Draft202012Validator] = {}
        self._fast: dict[str, Any] = {}  # schema id -> compiled validator, or None
        self._fast_registry: Any = None
        self._lock = threading.Lock()

    @classmethod
    def load(cls, directory: Path | None = None) -> SchemaRegistry:
        """Read and check every ``*.json`` below ``directory`` (default: the kit's ``schemas/``).

        Raises :class:`SchemaLoadError`, naming the file, for unreadable JSON, an invalid
        2020-12 schema, a ``$id`` that does not match the file's place, or a ``$ref`` that
        does not resolve. The kit's own documents skip the meta-schema check (about half a
        second of CPU in every process and worker): the self-tests check each of them
        against 2020-12 (``tests/schemas/test_documents.py``), and they ship with the kit unchanged.
        """
        meta_check = directory is not None
        root = Path(directory) if directory is not None else schemas_dir()
        documents: dict[str, dict[str, Any]] = {}
        for path in sorted(root.rglob("*.json")):
            name = path.relative_to(root).with_suffix("").as_posix()
            try:
                document = json.loads(path.read_text(encoding="utf-8"))
            except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
                raise SchemaLoadError(f"schema file {path} cannot be read as JSON: {exc}") from exc
            if not isinstance(document, dict):
                raise SchemaLoadError(f"schema file {path} does not hold a JSON object")
            try:
                if meta_check:
                    Draft202012Validator.check_schema(document)
            except SchemaError as exc:
                where = format_path(list(exc.path))
                raise SchemaLoadError(
                    f"schema file {path} is not a valid JSON Schema 2020-12 document "
                    f"(at {where}): {exc.message}"
                ) from exc
            expected_id = BASE_URI + name + ".json"
            if document.get("$id") != expected_id:
                raise SchemaLoadError(
                    f"schema file {path} has $id {document.get('$id')!r}; expected {expected_id!r}"
                )
            documents[name] = document
        if not documents:
            raise SchemaLoadError(f"no schema documents (*.json) found in {root}")
        registry = cls(documents, root)
        registry._check_refs()
        return registry

    def _check_refs(self) -> None:
        for name, document in self._documents.items():
            base = str(document["$id"])
            resolver = self._registry.resolver(base_uri=base)
            for reference in _iter_refs(document):
                try:
                    resolver.lookup(reference)
                except Unresolvable as exc:
                    raise SchemaLoadError(
                        f"schema file {self._directory / (name + '.json')} has a $ref "
                        f"{reference!r} that does not resolve"
                    ) from exc

    @property
    def directory(self) -> Path:
        """The folder the documents were read from."""
        return self._directory

    def names(self) -> list[str]:
        """Short names of every document, sorted (``"quote"``, ``"webhooks/envelope"``, ...)."""
        return sorted(self._documents)

    def _split(self, name_or_id: str) -> tuple[str, str]:
        """Return ``(short name, fragment)`` for any accepted way of naming a schema."""
        base, fragment = urldefrag(name_or_id)
        if base in self._by_id:
            return self._by_id[base], fragment
        short = base.removesuffix(".json")
        if short in self._documents:
            return short, fragment
        raise UnknownSchemaError(
            f"unknown schema {name_or_id!r}; known names: {', '.join(self.names())}"
        )

    def schema_id(self, name_or_id: str) -> str:
        """The full URI (``$id`` plus any fragment) of a named schema."""
        name, fragment = self._split(name_or_id)
        uri = str(self._documents[name]["$id"])
        return f"{uri}#{fragment}" if fragment else uri

    def document(self, name_or_id: str) -> Mapping[str, Any]:
        """The whole document a name refers to (fragments are ignored)."""
        name, _ = self._split(name_or_id)
        return self._documents[name]

    def clause(self, name_or_id: str) -> str | None:
        """The spec clause a schema document cites: its description up to the first aside."""
        name, _ = self._split(name_or_id)
        description = str(self._documents[name].get("description", ""))
        if not description.startswith("§"):
            return None
        return re.split(r" \(|[.;] ", description, maxsplit=1)[0].rstrip(".")

    def title(self, name_or_id: str) -> str:
        """Title of the named schema: the definition's own title, else its document's."""
        name, fragment = self._split(name_or_id)
        document = self._documents[name]
        if fragment:
            resolver = self._registry.resolver(base_uri=str(document["$id"]))
            try:
                target = resolver.lookup(f"#{fragment}")
            except Unresolvable as exc:
                raise UnknownSchemaError(
                    f"schema {name!r} has no definition at #{fragment} ({name_or_id!r})"
                ) from exc
            if isinstance(target.contents, Mapping) and "title" in target.contents:
                return str(target.contents["title"])
        return str(document.get("title", name))

    def validator(self, name_or_id: str) -> Draft202012Validator:
        """A cached validator (with format checking) for a document or a definition in one."""
        key = self.schema_id(name_or_id)
        cached = self._validators.get(key)
        if cached is not None:
            return cached
        name, fragment = self._split(name_or_id)
        schema: Mapping[str, Any] = (
            {"$ref": key, "title": self.title(name_or_id)} if fragment else self._documents[name]
        )
        validator = Draft202012Validator(
            schema,
            registry=self._registry,
            format_checker=Draft202012Validator.FORMAT_CHECKER,
        )
        with self._lock:
            return self._validators.setdefault(key, validator)

    def _fast_validator(self, key: str) -> Any:
        """The compiled (``jsonschema_rs``) validator of a schema id, or None without one."""
        if key in self._fast:
            return self._fast[key]
        fast = None
        if _compiled is not None:
            try:
                with self._lock:
                    if self._fast_registry is None:
                        self._fast_registry = _compiled.Registry(
                            [(str(doc["$id"]), dict(doc)) for doc in self._documents.values()]
                        )
                fast = _compiled.validator_for(
                    {"$ref": key}, registry=self._fast_registry, validate_formats=True
                )
            except Exception:  # a schema it cannot compile: python validates everything
                fast = None
        self._fast[key] = fast
        return fast

    def known_valid(self, name_or_id: str, instance: object) -> bool:
        """Whether the compiled validator accepts ``instance`` (False: ask python).

        Python's ``jsonschema`` is the authority and writes every message; the compiled
        validator only answers "valid" early, and only where it is never laxer than python
        for our schemas: it checks the formats they use (``date-time``, ``uri``), which
        python leaves unchecked, and its ECMA patterns refuse what python's ``re`` also
        refuses (and more: a trailing newline before ``$``, non-ASCII digits for ``\\d``).
        Anything it cannot take (lone surrogates, integers beyond 64 bits) goes to python.
        ``tests/test_schema_fast_path.py`` holds that a fast "valid" is never python's
        "invalid"."""
        fast = self._fast_validator(self.schema_id(name_or_id))
        if fast is None:
            return False
        try:
            return bool(fast.is_valid(instance))
        except Exception:  # not representable as JSON for it
            return False

    def violations(self, name_or_id: str, instance: object) -> list[SchemaViolation]:
        """Every violation of the named schema by ``instance``, ordered by location.

        An empty list means the instance is valid. Violations inside ``anyOf``/``oneOf``
        are reported at the most relevant branch (see :func:`_leaf`). A body the compiled
        validator accepts is not walked again in python (~300 times slower; nearly every
        body a run reads is valid).
        """
        if self.known_valid(name_or_id, instance):
            return []
        validator = self.validator(name_or_id)
        title = self.title(name_or_id)
        found: list[SchemaViolation] = []
        seen: set[tuple[str, str, str]] = set()
        errors = sorted(validator.iter_errors(instance), key=_path_order)
        for top in errors:
            error = _leaf(top)
            location = tuple(error.absolute_path)
            path = format_path(location)
            keyword = str(error.validator)
            message = _message(error)
            if (path, keyword, message) in seen:
                continue
            seen.add((path, keyword, message))
            found.append(SchemaViolation(path, keyword, message, title, location))
        return found

    def is_valid(self, name_or_id: str, instance: object) -> bool:
        """Whether ``instance`` follows the named schema."""
        if self.known_valid(name_or_id, instance):
            return True
        return bool(self.validator(name_or_id).is_valid(instance))


@cache
def default_registry() -> SchemaRegistry:
    """The registry of the kit's own ``schemas/`` folder, loaded once per process."""
    return SchemaRegistry.load()
