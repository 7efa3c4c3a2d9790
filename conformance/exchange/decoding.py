"""The one decoding layer for values read from a target (response bodies, webhook bodies).

It bounds size, nesting depth and number size, insists on UTF-8, and turns anything it
cannot read into a :class:`DecodeProblem` that says what was expected and what was
received, never into a RecursionError, OverflowError or UnicodeDecodeError deep in a test.

An object that names one member twice is ambiguous (clients disagree on which value wins:
most keep the last, some the first, some refuse), so it is not read with either value: it
is a :class:`DuplicateMember` naming the member and where it sits.
"""

from __future__ import annotations

import contextlib
import json
import math
from collections.abc import Callable
from typing import Any

__all__ = [
    "MAX_DEPTH",
    "MAX_INT_DIGITS",
    "DecodeProblem",
    "DuplicateMember",
    "decode_json",
    "describe",
    "member_pairs",
]

MAX_DEPTH = 64
MAX_INT_DIGITS = 40
MAX_BYTES = 10 * 1024 * 1024


class DecodeProblem(ValueError):
    """A body the suite cannot read as the JSON the interface promises."""

    def __init__(self, expected: str, received: str) -> None:
        self.expected = expected
        self.received = received
        super().__init__(f"expected {expected}; got {received}")


class DuplicateMember(DecodeProblem):
    """A JSON object that names one member more than once (``name``, in the object at
    ``where``: ``$`` for the top level, ``$.data``, ``$.items[2]``)."""

    def __init__(self, name: str, where: str, count: int) -> None:
        self.name = name
        self.where = where
        super().__init__(
            "a JSON body whose objects name each member once (with a repeated name, clients "
            "disagree on which value wins)",
            f"the member {name!r} {count} times in the object at {where}",
        )


class _Repeated(Exception):
    """Raised from inside the parser at the first object that repeats a member."""


def _unique_members(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    obj = dict(pairs)
    if len(obj) != len(pairs):
        raise _Repeated
    return obj


class _Marked(dict[str, Any]):
    """An object that repeats ``repeated`` (``count`` times), kept while locating it."""

    repeated = ""
    count = 0


def _mark_repeats(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    obj = dict(pairs)
    if len(obj) == len(pairs):
        return obj
    marked = _Marked(obj)
    names = [name for name, _ in pairs]
    marked.repeated = next(name for name in names if names.count(name) > 1)
    marked.count = names.count(marked.repeated)
    return marked


def _locate_repeat(text: str) -> DecodeProblem:
    """Parse again, marking each object that repeats a member, and name the first one met
    in document order with its location (or what else makes the text unreadable: the first
    parse stopped at the repeat, before anything later in the text)."""
    try:
        value = _loads(text, _mark_repeats)
    except DecodeProblem as problem:
        return problem
    stack: list[tuple[Any, str]] = [(value, "$")]
    while stack:
        item, where = stack.pop()
        if isinstance(item, _Marked):
            return DuplicateMember(item.repeated, where, item.count)
        if isinstance(item, dict):
            stack.extend((inner, _member_path(where, key)) for key, inner in reversed(item.items()))
        elif isinstance(item, list):
            stack.extend((inner, f"{where}[{i}]") for i, inner in reversed(list(enumerate(item))))
    return DuplicateMember("?", "$", 2)  # not reached: the first parse met a repeat


def _member_path(where: str, key: str) -> str:
    return f"{where}.{key}" if key.isidentifier() else f"{where}[{json.dumps(key)}]"


def _parse_int(text: str) -> int:
    digits = text.lstrip("-")
    if len(digits) > MAX_INT_DIGITS:
        raise DecodeProblem(
            f"JSON numbers of at most {MAX_INT_DIGITS} digits",
            f"an integer of {len(digits)} digits ({text[:20]}...)",
        )
    return int(text)


def _parse_float(text: str) -> float:
    value = float(text)
    if math.isinf(value):
        raise DecodeProblem("JSON numbers a double can hold", f"{text[:40]} (out of range)")
    return value


def _parse_constant(name: str) -> Any:
    raise DecodeProblem("JSON (NaN and Infinity are not JSON)", name)


def decode_json(raw: bytes | str, *, max_depth: int = MAX_DEPTH, max_bytes: int = MAX_BYTES) -> Any:
    """The JSON value of ``raw``; a :class:`DecodeProblem` for anything else."""
    if len(raw) > max_bytes:
        raise DecodeProblem(f"a JSON body of at most {max_bytes} bytes", f"{len(raw)} bytes")
    if isinstance(raw, bytes):
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise DecodeProblem(
                "a UTF-8 JSON body", f"invalid UTF-8 at byte {exc.start}: {_excerpt(raw)}"
            ) from None
    else:
        text = raw
    if not text.strip():
        raise DecodeProblem("a JSON body", "an empty body")
    depth = _quick_depth(text)
    if depth > max_depth:
        raise DecodeProblem(
            f"JSON nested at most {max_depth} levels deep", f"nesting {depth} levels deep"
        )
    try:
        return _loads(text, _unique_members)
    except _Repeated:
        raise _locate_repeat(text) from None


def member_pairs(raw: bytes | str) -> list[tuple[str, Any]]:
    """Every ``(name, value)`` member of every object in ``raw``, repeats included (inner
    objects first): what evidence needs to find every secret in a body that repeats a
    member. A :class:`DecodeProblem` for a body :func:`decode_json` cannot read otherwise."""
    with contextlib.suppress(DuplicateMember):  # the bounds, checked first
        decode_json(raw)
    members: list[tuple[str, Any]] = []

    def collect(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        members.extend(pairs)
        return dict(pairs)

    text = raw.decode("utf-8") if isinstance(raw, bytes) else raw
    _loads(text, collect)
    return members


def _loads(text: str, hook: Callable[[list[tuple[str, Any]]], dict[str, Any]]) -> Any:
    try:
        return json.loads(
            text,
            object_pairs_hook=hook,
            parse_int=_parse_int,
            parse_float=_parse_float,
            parse_constant=_parse_constant,
        )
    except (DecodeProblem, _Repeated):
        raise
    except RecursionError:
        raise DecodeProblem(f"JSON nested at most {MAX_DEPTH} levels deep", "deeper") from None
    except ValueError as exc:
        raise DecodeProblem("a JSON body", f"not JSON ({exc}): {_excerpt(text)}") from None


def _quick_depth(text: str) -> int:
    """The deepest bracket nesting outside strings (an upper bound that is cheap to take)."""
    opening = text.count("[") + text.count("{")
    if opening <= MAX_DEPTH:
        return opening
    depth = deepest = 0
    in_string = escaped = False
    for char in text:
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char in "[{":
            depth += 1
            if depth > deepest:
                deepest = depth
        elif char in "]}":
            depth -= 1
    return deepest


def describe(value: object) -> str:
    """What a JSON value is, in words: ``an object``, ``an array of 3``, ``null``..."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return f"a boolean ({str(value).lower()})"
    if isinstance(value, dict):
        return f"an object with keys {sorted(map(str, value))[:8]}"
    if isinstance(value, list):
        return f"an array of {len(value)}"
    if isinstance(value, str):
        return f"a string ({value[:40]!r})"
    if isinstance(value, int | float):
        return f"a number ({str(value)[:40]})"
    return type(value).__name__


def _excerpt(data: bytes | str, limit: int = 120) -> str:
    text = data.decode("utf-8", errors="replace") if isinstance(data, bytes) else data
    return repr(text[:limit]) + ("..." if len(text) > limit else "")
