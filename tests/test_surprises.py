"""A raw exception from reading a malformed answer becomes a clause failure in words."""

from __future__ import annotations

from datetime import UTC, datetime
from types import SimpleNamespace

import pytest

from conformance.exchange.surprises import as_clause_failure

RAW_NAMES = ("KeyError", "IndexError", "TypeError", "AttributeError", "RecursionError",
             "OverflowError", "NoneType", "'list' object")  # fmt: skip


def raised(action):
    try:
        action()
    except Exception as exc:  # the point: whatever a test hits
        return exc
    raise AssertionError("nothing was raised")


def _null():
    return None


def _deep():
    value: list = []
    for _ in range(100_000):
        value = [value]
    return repr(value)


CASES = {
    "missing key": (lambda: {}["id"], "a field 'id'"),
    "array for object": (lambda: [1].get("id"), "an object or an array"),
    "null for object": (lambda: _null()["id"], "null"),
    "empty list": (lambda: [][0], "a non-empty list"),
    "naive date": (lambda: datetime(2026, 1, 1) < datetime.now(UTC), "a time zone"),
    "huge number": (lambda: float(10**400), "in the range"),
    "deep nesting": (_deep, "nested"),
}


@pytest.mark.parametrize("case", CASES)
def test_a_surprise_reads_as_a_clause_failure(case):
    action, words = CASES[case]
    exchange = SimpleNamespace(summary=lambda: "GET /x -> 200 (1 ms)", curl="curl -sS x")
    item = SimpleNamespace(iter_markers=lambda name=None: iter(()))
    failure = as_clause_failure(item, raised(action), exchange)
    message = str(failure)
    assert words in message
    assert "GET /x -> 200" in message
    for name in RAW_NAMES:
        assert name not in message, message


def test_a_surprise_names_where_the_kit_read_it():
    """A kit bug would read like a target's fault; the location lets a reader tell them apart."""
    exchange = SimpleNamespace(summary=lambda: "GET /x -> 200 (1 ms)", curl="curl -sS x")
    item = SimpleNamespace(iter_markers=lambda name=None: iter(()))
    message = str(as_clause_failure(item, raised(lambda: {}["id"]), exchange))
    assert "the kit misread it" in message
    assert "test_surprises.py:" in message
