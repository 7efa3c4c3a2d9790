"""A target's malformed answer ends a test as a clause failure, never as a Python exception.

Tests read answers directly (``response.json["id"]``). When an answer is not what the
interface promises (an array where an object is expected, ``null``, a missing key, a date
without a zone, a number no type holds), the raw KeyError, TypeError, AttributeError,
IndexError, OverflowError or RecursionError is turned here into a
:class:`~conformance.contract.failures.ConformanceFailure` naming the test's clause, what was
expected and what was received, with the last exchange. Only for tests that talked to the
target: an exception in a test that did not is the kit's own bug and keeps its traceback.
"""

from __future__ import annotations

import re
import traceback
from collections.abc import Callable, Generator
from pathlib import Path

import pytest
from hypothesis.errors import Flaky

from conformance.contract.failures import ConformanceFailure
from conformance.contract.markers import item_requirements
from conformance.contract.requirements import default_catalogue
from conformance.exchange.decoding import DecodeProblem

__all__ = ["SURPRISES", "as_clause_failure", "guard"]

SURPRISES: tuple[type[BaseException], ...] = (
    KeyError,
    IndexError,
    TypeError,
    AttributeError,
    RecursionError,
    OverflowError,
    ValueError,
    UnicodeError,
    ZeroDivisionError,
    ArithmeticError,
    LookupError,
)

_PY_TYPES = {
    "NoneType": "null",
    "list": "an array",
    "dict": "an object",
    "str": "a string",
    "int": "a number",
    "float": "a number",
    "bool": "a boolean",
    "tuple": "an array",
}


def _json_type(python: str) -> str:
    return _PY_TYPES.get(python, "another kind of value")


def _expected_received(exc: BaseException) -> tuple[str, str]:
    """What the test needed and what it found, in the interface's words."""
    text = str(exc)
    if isinstance(exc, DecodeProblem):
        return exc.expected, exc.received
    if isinstance(exc, KeyError):
        key = exc.args[0] if exc.args else "?"
        return f"a field {key!r}", "an answer without it"
    if isinstance(exc, IndexError):
        return "a non-empty list", "fewer items than needed (an empty list?)"
    if isinstance(exc, RecursionError):
        return "JSON nested to a reasonable depth", "a value nested too deep to read"
    if isinstance(exc, OverflowError):
        return "numbers and dates in the range the interface uses", "a value out of range"
    if isinstance(exc, TypeError) and "offset-naive and offset-aware" in text:
        return "a timestamp with a time zone", "a timestamp without one"
    found = re.search(r"'(\w+)' object", text)
    if isinstance(exc, AttributeError | TypeError) and found:
        received = _json_type(found.group(1))
        if "subscriptable" in text or "has no attribute 'get'" in text:
            return "an object or an array", received
        return "a value of the type the interface states", received
    if isinstance(exc, TypeError) and "NoneType" in text:
        return "a value", "null"
    if isinstance(exc, TypeError):
        return "values of the types the interface states", "a value of another type"
    if isinstance(exc, ValueError | UnicodeError):
        return "a value in the format the interface states", _clip(text) or "another format"
    return "a readable answer", _clip(text) or "an answer the test could not read"


def _clip(text: str, limit: int = 160) -> str:
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _clause(item: pytest.Item) -> str:
    catalogue = default_catalogue()
    for rid in item_requirements(item):
        if rid in catalogue.ids():
            return catalogue.get(rid).section
    return "Conventions"


def as_clause_failure(item: pytest.Item, exc: BaseException, last: object) -> ConformanceFailure:
    """The clause failure a surprise in ``item`` stands for; ``last`` is the last exchange."""
    expected, received = _expected_received(exc)
    exchange = last if hasattr(last, "summary") and hasattr(last, "curl") else None
    statement = "the test could not read what it needs from the target's answer"
    if exchange is not None:
        statement = f"the answer to {exchange.summary()} cannot be read as the interface states"
    return ConformanceFailure(
        _clause(item),
        statement,
        expected=_Plain(expected),
        observed=_Plain(received),
        hint=(
            "the exchanges below show the whole answer; if it is what the interface states,"
            f" the kit misread it: report it to the kit's maintainers ({_where(exc)})"
        ),
        exchange=exchange,
    )


def _where(exc: BaseException) -> str:
    """Where in the kit's code the answer could not be read (the innermost frame), so a
    misread valid answer can be told from a target's fault and fixed."""
    frames = traceback.extract_tb(exc.__traceback__)
    if not frames:
        return "no location"
    last = frames[-1]
    parts = Path(last.filename).parts
    short = "/".join(parts[-3:]) if len(parts) >= 3 else last.filename
    return f"read at {short}:{last.lineno}"


class _Plain(str):
    def __repr__(self) -> str:
        return str(self)


def guard(
    item: pytest.Item,
    talked: Callable[[], object | None],
    first_met: Callable[[], ConformanceFailure | None] = lambda: None,
) -> Generator[None, object, object]:
    """A ``wrapper=True`` hook body: run the phase; turn a surprise into a clause failure
    when the test talked to the target (``talked`` returns the last exchange, or None;
    ``first_met`` the first failure an answer check raised in the phase, or None)."""
    try:
        return (yield)
    except Flaky as exc:
        # Hypothesis replays a failing example; a target answering differently each time
        # makes the replay "flaky": report the clause failure it saw (the first an answer
        # check charged, a 5xx say, when Hypothesis kept none), not Hypothesis' dump
        if talked() is None:
            raise
        inner = _inner_failure(exc) or first_met()
        if inner is not None:
            raise inner from None
        raise _inconsistent(item, talked()) from None
    except SURPRISES as exc:
        if isinstance(exc, AssertionError):
            raise
        last = talked()
        if last is None:
            raise
        raise as_clause_failure(item, exc, last) from None


def _inner_failure(exc: BaseException) -> ConformanceFailure | None:
    seen: set[int] = set()
    pending: list[BaseException] = [exc]
    while pending:
        current = pending.pop()
        if id(current) in seen:
            continue
        seen.add(id(current))
        if isinstance(current, ConformanceFailure):
            return current
        if isinstance(current, BaseExceptionGroup):
            pending.extend(current.exceptions)
        pending.extend(e for e in (current.__cause__, current.__context__) if e is not None)
    return None


def _inconsistent(item: pytest.Item, last: object) -> ConformanceFailure:
    failure = as_clause_failure(item, ValueError(), last)
    return ConformanceFailure(
        failure.clause,
        "the target answered the same requests differently from one try to the next",
        expected=_Plain("the same answer to the same request"),
        observed=_Plain("different answers (see the exchanges)"),
        exchange=failure.exchange,
    )
