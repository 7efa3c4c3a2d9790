"""Codes by value (``conformance/contract/error_codes.py``): §7 names the codes but not the
member carrying them, so a code as the value of any top-level member counts (issue 34)."""

from __future__ import annotations

import jsonschema

from conformance.contract.error_codes import carries_code, code_of, value_anywhere
from conformance.contract.schemas import default_registry


def test_a_code_counts_in_any_top_level_member():
    for body in (
        {"code": "INVALID_INPUT"},
        {"errorCode": "INVALID_INPUT"},
        {"error": "INVALID_INPUT"},
    ):
        assert carries_code(body, "INVALID_INPUT")
    assert not carries_code(
        {"code": "OTHER", "details": {"code": "INVALID_INPUT"}}, "INVALID_INPUT"
    )
    assert not carries_code(None, "INVALID_INPUT")
    assert carries_code({"kind": "INVALID_INPUT"}, "INVALID_INPUT", member="kind")


def test_the_code_shown_prefers_the_named_member_then_a_code_like_value():
    assert code_of({"code": "A_B", "errorCode": "C_D"}) == "A_B"
    assert code_of({"message": "no such quote", "errorCode": "NOT_FOUND"}) == "NOT_FOUND"
    assert code_of({"message": "nothing"}) is None
    assert code_of({"kind": "X_Y"}, member="kind") == "X_Y"


def test_value_anywhere_is_a_schema_of_a_member_holding_the_code():
    schema = value_anywhere("INVALID_INPUT")
    assert jsonschema.Draft202012Validator(schema).is_valid({"errorCode": "INVALID_INPUT"})
    assert not jsonschema.Draft202012Validator(schema).is_valid({"code": "OTHER"})


def test_the_error_schemas_take_the_code_under_another_member():
    registry = default_registry()
    invalid = {
        "status": 400,
        "errorCode": "INVALID_INPUT",
        "details": {"errors": [{"field": "a", "constraint": "REQUIRED"}]},
    }
    assert not registry.violations("errors/error-400", invalid)
    assert registry.violations("errors/error-400", {**invalid, "errorCode": "OTHER"})
    unauthorized = {"status": 401, "errorCode": "UNAUTHORIZED", "reason": "bad secret"}
    assert not registry.violations("errors/error-401", unauthorized)
    assert registry.violations("errors/error-401", {"status": 401, "reason": "bad secret"})
