"""The optional-fields table and its one check (``contract/optional_fields.py``,
``exchange/honoured.py``), met with answers a target may give."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from conformance.contract.failures import ConformanceFailure
from conformance.contract.optional_fields import (
    ABSENT,
    OPTIONAL_FIELDS,
    OptionalField,
    value_at,
    with_value,
)
from conformance.contract.requirements import default_catalogue
from conformance.exchange.honoured import assert_kept, refused_or_accepted
from conformance.suites.endpoints.test_optional_fields import SENDERS
from tests.answering_client import client_answering

RAIL = next(f for f in OPTIONAL_FIELDS if f.name == "destination.paymentRail")
PURPOSE = next(f for f in OPTIONAL_FIELDS if f.name == "purposeOfPayment")
QUOTE = {"id": "Quote:00000000-0000-4000-8000-000000000001", "status": "PENDING"}


def _errors(*fields: str) -> dict[str, Any]:
    entries = [{"field": f, "constraint": "UNSUPPORTED", "message": "no"} for f in fields]
    return {
        "status": 400,
        "code": "INVALID_INPUT",
        "message": "invalid",
        "details": {"errors": entries},
    }


def _answer(status: int, body: dict[str, Any]) -> Any:
    client = client_answering(lambda request: httpx.Response(status, json=body))
    return client.post("/quotes", json={}, validate=False)


def test_every_row_names_a_requirement_of_the_endpoints_part_and_has_a_sender() -> None:
    catalogue = default_catalogue()
    for field in OPTIONAL_FIELDS:
        assert catalogue.get(field.requirement).part == "endpoints", field
        assert field.operation in SENDERS, field
        assert field.values, field


def test_a_value_is_set_and_read_at_its_path_without_changing_the_body() -> None:
    body = {"destination": {"destinationType": "ACCOUNT"}, "lockedCurrencyAmount": 1}
    sent = with_value(body, ("destination", "paymentRail"), "WIRE")
    assert sent["destination"] == {"destinationType": "ACCOUNT", "paymentRail": "WIRE"}
    assert "paymentRail" not in body["destination"]
    assert value_at(sent, ("destination", "paymentRail")) == "WIRE"
    assert value_at(sent, ("destination", "accountId")) is ABSENT
    assert value_at({"destination": None}, ("destination", "paymentRail")) is ABSENT


@pytest.mark.parametrize(
    ("status", "body"),
    [(201, QUOTE), (400, _errors("destination.paymentRail")), (400, _errors("destination"))],
    ids=["accepted", "refused-naming-it", "refused-naming-its-object"],
)
def test_an_acceptance_or_a_refusal_naming_the_field_passes(status: int, body: Any) -> None:
    answered = refused_or_accepted(_answer(status, body), RAIL, "WIRE")
    assert answered == (body if status == 201 else None)


@pytest.mark.parametrize(
    ("status", "body"),
    [(400, _errors("lockedCurrencyAmount")), (409, {"status": 409, "code": "CONFLICT"})],
    ids=["refused-naming-another-field", "another-status"],
)
def test_any_other_refusal_fails_naming_the_clause(status: int, body: Any) -> None:
    with pytest.raises(ConformanceFailure) as raised:
        refused_or_accepted(_answer(status, body), PURPOSE, "GOODS_AND_SERVICES")
    assert raised.value.clause == PURPOSE.clause
    assert "purposeOfPayment" in str(raised.value)


def test_a_value_kept_passes_and_another_fails() -> None:
    assert_kept(RAIL, "WIRE", {"destination": {"paymentRail": "WIRE"}}, "the quote")
    with pytest.raises(ConformanceFailure, match="expected 'WIRE'; got 'ACH'"):
        assert_kept(RAIL, "WIRE", {"destination": {"paymentRail": "ACH"}}, "the quote")
    with pytest.raises(ConformanceFailure, match="got <absent>"):
        assert_kept(RAIL, "WIRE", {"destination": {}}, "the quote")


def test_absent_where_it_need_not_be_is_an_advisory_and_unshown_is_never_checked() -> None:
    advised: list[str] = []
    assert_kept(RAIL, "WIRE", {"destination": {}}, "the transaction", required=False,
                advisory=advised.append)  # fmt: skip
    assert len(advised) == 1 and "paymentRail" in advised[0]
    with pytest.raises(ConformanceFailure):
        assert_kept(RAIL, "WIRE", {"destination": {"paymentRail": "ACH"}}, "the transaction",
                    required=False, advisory=advised.append)  # fmt: skip
    unshown = OptionalField("X", "POST /quotes", ("purposeOfPayment",), ("A",), "", "§4")
    assert_kept(unshown, "A", {}, "the quote")
