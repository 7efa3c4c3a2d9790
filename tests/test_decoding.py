"""The one decoding layer: a JSON object that repeats a member is ambiguous, named with where
it sits, never read with one of its values; everything else it bounded still is."""

from __future__ import annotations

import json

import pytest

from conformance.exchange.decoding import (
    DecodeProblem,
    DuplicateMember,
    decode_json,
    member_pairs,
)


def repeat(body: str) -> DuplicateMember:
    with pytest.raises(DuplicateMember) as info:
        decode_json(body.encode())
    return info.value


def test_a_repeated_member_at_the_top_is_named_with_its_place():
    problem = repeat('{"id": "Quote:1", "status": "COMPLETED", "amount": 1, "status": "PENDING"}')
    assert (problem.name, problem.where) == ("status", "$")
    assert problem.received == "the member 'status' 2 times in the object at $"
    assert "name each member once" in problem.expected
    assert isinstance(problem, DecodeProblem)  # callers that catch any unreadable body


@pytest.mark.parametrize(
    ("body", "name", "where"),
    [
        ('{"data": {"id": "x", "status": "A", "status": "B"}}', "status", "$.data"),
        ('{"items": [{"id": 1}, {"id": 2, "id": 3}]}', "id", "$.items[1]"),
        ('[{"ok": 1}, [{"a b": {"k": 1, "k": 2}}]]', "k", '$[1][0]["a b"]'),
        ('{"x": 1, "x": 2, "x": 3}', "x", "$"),
        # the first met in document order, though an inner object closes first
        ('{"a": {"b": 1, "b": 2}, "c": {"d": 1, "d": 2}}', "b", "$.a"),
        ('{"z": [{"q": 1, "q": 1}], "z": 2}', "z", "$"),
    ],
)
def test_a_repeat_anywhere_names_the_member_and_the_object(body, name, where):
    problem = repeat(body)
    assert (problem.name, problem.where) == (name, where)


def test_three_repeats_are_counted():
    assert repeat('{"x": 1, "x": 2, "x": 3}').received.startswith("the member 'x' 3 times")


def test_one_name_in_different_objects_is_no_repeat():
    body = '{"id": "a", "data": {"id": "b", "items": [{"id": "c"}, {"id": "d"}]}}'
    assert decode_json(body) == json.loads(body)


def test_a_repeat_before_something_unreadable_reports_the_unreadable():
    with pytest.raises(DecodeProblem) as info:
        decode_json(b'{"a": 1, "a": 2} trailing')
    assert not isinstance(info.value, DuplicateMember)
    assert "not JSON" in info.value.received
    with pytest.raises(DecodeProblem) as digits:
        decode_json(b'[{"a": 1, "a": 2}, 1' + b"0" * 100 + b"]")
    assert not isinstance(digits.value, DuplicateMember)
    assert "digits" in digits.value.received


def test_the_other_bounds_still_hold():
    for raw, received in (
        (b"[" * 100 + b"]" * 100, "nesting 100 levels deep"),
        (b'{"a": NaN}', "NaN"),
        (b"\xff", "invalid UTF-8"),
        (b"  ", "an empty body"),
    ):
        with pytest.raises(DecodeProblem) as info:
            decode_json(raw)
        assert received in info.value.received


def test_member_pairs_keeps_every_member_of_every_object_repeats_included():
    pairs = member_pairs(b'{"token": "t1", "inner": {"token": "t2"}, "token": "t3"}')
    assert [value for name, value in pairs if name == "token"] == ["t2", "t1", "t3"]
    with pytest.raises(DecodeProblem):
        member_pairs(b"[" * 100 + b"]" * 100)
