"""The registry's behaviour: lookup by name, id or fragment, titles, violations and their
messages, and how a path is written."""

from __future__ import annotations

import copy
import dataclasses

import pytest

from conformance.contract.schemas import (
    BASE_URI,
    SchemaRegistry,
    SchemaViolation,
    UnknownSchemaError,
    default_registry,
    format_path,
)

from .samples import INDIVIDUAL, PLATFORM_CONFIG, QUOTE, TRANSACTION


def test_names_ids_and_fragments_reach_the_same_cached_validator(registry: SchemaRegistry) -> None:
    first = registry.validator("quote")
    assert registry.validator("quote.json") is first
    assert registry.validator(BASE_URI + "quote.json") is first
    assert registry.schema_id("webhooks/envelope") == BASE_URI + "webhooks/envelope.json"
    assert registry.validator("common#/$defs/Timestamp") is registry.validator(
        BASE_URI + "common.json#/$defs/Timestamp"
    )


def test_titles_of_documents_and_definitions(registry: SchemaRegistry) -> None:
    assert registry.title("platform-config") == "PlatformConfig"
    assert registry.title("common#/$defs/Timestamp") == "Timestamp"
    violation = registry.violations("platform-config", {"id": 1})[0]
    assert violation.schema_title == "PlatformConfig"


def test_unknown_schema_names_are_reported_with_the_known_ones(registry: SchemaRegistry) -> None:
    with pytest.raises(UnknownSchemaError, match=r"unknown schema 'qoute'.*quote"):
        registry.validator("qoute")
    with pytest.raises(UnknownSchemaError, match=r"no definition at #/\$defs/Nope"):
        registry.violations("common#/$defs/Nope", 1)


def test_default_registry_is_loaded_once() -> None:
    assert default_registry() is default_registry()
    assert "quote" in default_registry().names()


def test_violation_is_a_frozen_slots_value(registry: SchemaRegistry) -> None:
    violation = registry.violations("quote", {**QUOTE, "totalSendingAmount": 1.5})[0]
    assert violation == SchemaViolation(
        "totalSendingAmount",
        "type",
        "1.5 is not of type 'integer'",
        "Quote",
        ("totalSendingAmount",),
    )
    assert not hasattr(violation, "__dict__")
    with pytest.raises(dataclasses.FrozenInstanceError):
        violation.path = "x"  # type: ignore[misc]
    assert str(violation) == "totalSendingAmount: 1.5 is not of type 'integer'"


def test_violation_paths_read_like_code(registry: SchemaRegistry) -> None:
    config = copy.deepcopy(PLATFORM_CONFIG)
    config["supportedCurrencies"][0]["minAmount"] = "1"
    config["supportedCurrencies"][0]["requiredCounterpartyFields"][1]["name"] = "SHOE_SIZE"
    paths = [v.path for v in registry.violations("platform-config", config)]
    assert paths == [
        "supportedCurrencies[0].minAmount",
        "supportedCurrencies[0].requiredCounterpartyFields[1].name",
    ]


def test_messages_show_the_offending_value_truncated(registry: SchemaRegistry) -> None:
    long_id = "Customer:" + "z" * 500
    (violation,) = registry.violations("customer", {**INDIVIDUAL, "id": long_id})
    assert violation.message.startswith('"Customer:zzz')
    assert "..." in violation.message
    assert len(violation.message) < 300
    assert "Customer identifier" in violation.message


def test_messages_of_nullable_fields_explain_the_non_null_shape(registry: SchemaRegistry) -> None:
    (violation,) = registry.violations("transaction", {**TRANSACTION, "settledAt": "yesterday"})
    assert violation.path == "settledAt"
    assert violation.keyword == "pattern"
    assert "Timestamp" in violation.message


def test_messages_name_the_alternative_keys(registry: SchemaRegistry) -> None:
    body = {"code": "INVALID_INPUT", "details": {"errors": [{"message": "bad"}]}}
    messages = {v.message for v in registry.violations("errors/error-400", body)}
    assert "needs one of the properties 'field', 'path', 'pointer', 'name', 'property'" in messages
    assert "needs one of the properties 'constraint', 'code', 'rule', 'type'" in messages


def test_removed_values_are_named_in_the_message(registry: SchemaRegistry) -> None:
    (violation,) = registry.violations("card-transaction", {"status": "REFUNDED"})
    assert violation.message == '"REFUNDED" is not allowed here (excluded: "REFUNDED")'


@pytest.mark.parametrize(
    ("parts", "expected"),
    [
        ((), "$"),
        (("a",), "a"),
        (("a", 0, "b"), "a[0].b"),
        ((0, "url"), "$[0].url"),
        (("odd key", 1), '$["odd key"][1]'),
        (("a", "b.c"), 'a["b.c"]'),
    ],
)
def test_format_path(parts: tuple[str | int, ...], expected: str) -> None:
    assert format_path(parts) == expected
