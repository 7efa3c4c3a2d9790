"""The requirements catalogue: one entry per normative statement of the interface.

The catalogue lives in ``requirements.yaml`` beside this module. Each entry paraphrases one
statement of the interface (``spec/interface.md``), cites it by part and heading
(``§3 Quote and transaction``), files it under one of the suite's eight parts and one
functional area, and says how it can be checked:

``testable``
    the suite checks it over HTTP with what the interface shows;
``needs-adapter``
    checking it needs a trigger the interface names but hides (the ``reason`` names it);
``production-only``
    it is about production behaviour only (the ``reason`` says why);
``not-testable``
    nothing a client can observe decides it (the ``reason`` says why).

The loader validates the whole file at once and raises :class:`CatalogueError` naming the
entry and the problem, so a broken catalogue stops the suite at start-up rather than deep
inside a test.
"""

from __future__ import annotations

import difflib
import functools
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

import yaml

__all__ = [
    "AREAS",
    "CATALOGUE_PATH",
    "ID_PATTERN",
    "PARTS",
    "REASON_REQUIRED",
    "RECEIVER_AREA",
    "TESTABILITY",
    "Catalogue",
    "CatalogueError",
    "Requirement",
    "default_catalogue",
    "load_catalogue",
    "receiver_catalogue",
]

CATALOGUE_PATH: Final[Path] = Path(__file__).with_name("requirements.yaml")
"""The catalogue shipped with the suite."""

PARTS: Final[tuple[str, ...]] = (
    "resources",
    "transitions",
    "endpoints",
    "auth",
    "webhooks",
    "errors",
    "limits",
    "versioning",
)
"""The suite's parts, in report order; each has a folder under ``conformance/suites``."""

TESTABILITY: Final[tuple[str, ...]] = (
    "testable",
    "needs-adapter",
    "production-only",
    "not-testable",
)
"""How a requirement can be checked."""

REASON_REQUIRED: Final[frozenset[str]] = frozenset(
    {"needs-adapter", "production-only", "not-testable"}
)
"""Testability values whose entries must say why (and only these carry a reason)."""

AREAS: Final[tuple[str, ...]] = (
    "common",
    "config",
    "auth-basic",
    "versioning",
    "webhooks-core",
    "webhook-receiver",
    "errors-core",
    "customers",
    "agreements",
    "contact-verification",
    "kyc-link",
    "beneficial-owners",
    "documents",
    "verification",
    "internal-accounts",
    "rule-based-accounts",
    "external-accounts",
    "quotes",
    "fees",
    "transactions",
    "funding",
    "refunds",
    "sca",
    "wallet-auth",
    "cards",
    "agents",
    "invitations",
    "stablecoins",
    "uma",
    "limits",
    "sandbox",
)
"""Functional areas (features in reports), independent of the part."""

RECEIVER_AREA: Final[str] = "webhook-receiver"
"""The area of the platform's own duties toward the service's webhooks (§5, §6): checked by
``conformance receiver`` against a platform, so outside the service's catalogue."""

ID_PATTERN: Final[re.Pattern[str]] = re.compile(r"^[A-Z][A-Z0-9]*(-[A-Z0-9]+)+$")
"""Requirement ids are UPPER-KEBAB with at least two words: ``QUOTE-EXECUTE-SCA-409``."""

_REQUIRED_KEYS: Final[tuple[str, ...]] = (
    "id",
    "section",
    "statement",
    "part",
    "area",
    "testability",
)
_KNOWN_KEYS: Final[frozenset[str]] = frozenset({*_REQUIRED_KEYS, "reason"})


class CatalogueError(ValueError):
    """The catalogue file is unreadable or an entry breaks a rule.

    ``requirement_id`` is the offending entry's id (or ``entry #N`` when it has none),
    ``problem`` says what is wrong with it.
    """

    def __init__(self, requirement_id: str, problem: str, *, path: Path | None = None) -> None:
        self.requirement_id = requirement_id
        self.problem = problem
        self.path = path
        where = f"{path}: " if path is not None else ""
        super().__init__(f"requirements catalogue {where}{requirement_id}: {problem}")


@dataclass(frozen=True, slots=True)
class Requirement:
    """One normative statement of the interface, as the suite tracks it."""

    id: str
    section: str
    statement: str
    part: str
    area: str
    testability: str
    reason: str | None = None

    @property
    def needs_test(self) -> bool:
        """True when some test of the suite must name this requirement."""
        return self.testability in {"testable", "needs-adapter"}

    @property
    def clause(self) -> str:
        """The citation used in failure messages: ``§3 Quote and transaction: <statement>``."""
        return f"{self.section}: {self.statement}"


class Catalogue:
    """An ordered, validated collection of requirements, indexed by id."""

    __slots__ = ("_by_id", "_items")

    def __init__(self, requirements: tuple[Requirement, ...]) -> None:
        by_id: dict[str, Requirement] = {}
        for requirement in requirements:
            if requirement.id in by_id:
                raise CatalogueError(requirement.id, "duplicate id")
            by_id[requirement.id] = requirement
        self._items = requirements
        self._by_id = by_id

    def get(self, requirement_id: str) -> Requirement:
        """Return the requirement with this id.

        Raises ``KeyError`` naming the id and the closest known ids when it is unknown; use
        ``in`` to test membership.
        """
        try:
            return self._by_id[requirement_id]
        except KeyError:
            close = difflib.get_close_matches(requirement_id, self._by_id, n=3)
            hint = f"; did you mean {', '.join(close)}?" if close else ""
            raise KeyError(f"unknown requirement id {requirement_id!r}{hint}") from None

    def ids(self) -> tuple[str, ...]:
        """All ids, in catalogue order."""
        return tuple(self._by_id)

    def by_part(self) -> dict[str, tuple[Requirement, ...]]:
        """Requirements grouped by part; every part of :data:`PARTS` is a key, in order."""
        return {part: tuple(r for r in self._items if r.part == part) for part in PARTS}

    def by_area(self) -> dict[str, tuple[Requirement, ...]]:
        """Requirements grouped by area; every area of :data:`AREAS` is a key, in order."""
        return {area: tuple(r for r in self._items if r.area == area) for area in AREAS}

    def __iter__(self) -> Iterator[Requirement]:
        return iter(self._items)

    def __len__(self) -> int:
        return len(self._items)

    def __contains__(self, requirement_id: object) -> bool:
        return requirement_id in self._by_id

    def __repr__(self) -> str:
        return f"<Catalogue of {len(self._items)} requirements>"


def load_catalogue(path: Path | None = None) -> Catalogue:
    """Read and validate a catalogue file (default: the one shipped beside this module).

    Every rule is checked at load: unique ids matching :data:`ID_PATTERN`, a known part,
    area and testability, a section starting with ``§``, a non-empty statement, and a
    reason exactly where the testability requires one. The first violation raises
    :class:`CatalogueError`.
    """
    source = CATALOGUE_PATH if path is None else Path(path)
    try:
        text = source.read_text(encoding="utf-8")
    except OSError as exc:
        raise CatalogueError("(file)", f"cannot be read: {exc}", path=source) from exc
    try:
        # libyaml's loader when built in: ten times faster than the pure-Python one, and every
        # process and worker of a run loads the catalogue
        raw = yaml.load(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    except yaml.YAMLError as exc:
        raise CatalogueError("(file)", f"is not valid YAML: {exc}", path=source) from exc
    if not isinstance(raw, list):
        raise CatalogueError(
            "(file)", f"must be a list of entries, got {type(raw).__name__}", path=source
        )
    try:
        return Catalogue(tuple(_parse_entry(index, entry) for index, entry in enumerate(raw, 1)))
    except CatalogueError as exc:
        raise CatalogueError(exc.requirement_id, exc.problem, path=source) from None


@functools.cache
def _shipped() -> Catalogue:
    return load_catalogue()


@functools.cache
def default_catalogue() -> Catalogue:
    """The service's requirements (what ``conformance run`` checks): the shipped catalogue,
    loaded and validated once per process, without the receiver's area."""
    return Catalogue(tuple(r for r in _shipped() if r.area != RECEIVER_AREA))


@functools.cache
def receiver_catalogue() -> Catalogue:
    """The platform's requirements toward the service's webhooks (``conformance receiver``)."""
    return Catalogue(tuple(r for r in _shipped() if r.area == RECEIVER_AREA))


def _parse_entry(index: int, entry: Any) -> Requirement:
    label = f"entry #{index}"
    if not isinstance(entry, Mapping):
        raise CatalogueError(label, f"must be a mapping, got {type(entry).__name__}")
    raw_id = entry.get("id")
    if isinstance(raw_id, str) and raw_id:
        label = raw_id
    unknown = sorted(str(key) for key in entry if key not in _KNOWN_KEYS)
    if unknown:
        raise CatalogueError(label, f"unknown key(s) {', '.join(unknown)}")
    values: dict[str, str] = {}
    for key in _REQUIRED_KEYS:
        value = entry.get(key)
        if not isinstance(value, str) or not value.strip():
            raise CatalogueError(label, f"{key!r} must be a non-empty string, got {value!r}")
        values[key] = value.strip()

    requirement_id = values["id"]
    if not ID_PATTERN.match(requirement_id):
        raise CatalogueError(label, f"id does not match {ID_PATTERN.pattern}")
    if not values["section"].startswith("§"):
        raise CatalogueError(label, f"section {values['section']!r} must start with '§'")
    _check_choice(label, "part", values["part"], PARTS)
    _check_choice(label, "area", values["area"], AREAS)
    _check_choice(label, "testability", values["testability"], TESTABILITY)

    reason = entry.get("reason")
    if values["testability"] in REASON_REQUIRED:
        if not isinstance(reason, str) or not reason.strip():
            raise CatalogueError(
                label, f"a {values['testability']} requirement needs a non-empty 'reason'"
            )
        reason = reason.strip()
    elif reason is not None:
        raise CatalogueError(label, "a testable requirement carries no 'reason'")

    return Requirement(reason=reason, **values)


def _check_choice(label: str, key: str, value: str, allowed: tuple[str, ...]) -> None:
    if value not in allowed:
        raise CatalogueError(
            label, f"unknown {key} {value!r}; expected one of {', '.join(allowed)}"
        )
