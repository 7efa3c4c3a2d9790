"""``conformance.exchange.echo``: answers compared with what was sent, field by field."""

from __future__ import annotations

import pytest

from conformance.exchange.echo import differences, echoes

FEE = {"sourceCurrency": "USD", "variableRateBps": 37, "fixedFee": 11}


def test_extra_fields_in_an_answer_are_allowed():
    answered = [{**FEE, "id": "FeeConfig:1", "createdAt": "2025-10-13T00:00:00Z"}]
    assert echoes([FEE], answered)


def test_a_fixed_amount_may_read_back_as_a_money_object_where_the_caller_allows_it():
    money = {**FEE, "fixedFee": {"amount": 11, "currency": {"code": "USD", "decimals": 2}}}
    assert echoes([FEE], [money], amounts={"fixedFee"})
    assert not echoes([FEE], [money])  # only for the keys named
    wrong = {**FEE, "fixedFee": {"amount": 12}}
    assert differences([FEE], [wrong], amounts={"fixedFee"}) == ["[0].fixedFee: sent 11, got 12"]


@pytest.mark.parametrize(
    ("answered", "problem"),
    [
        ([], "$: sent 1 entries, got []"),
        ([{**FEE, "variableRateBps": 38}], "[0].variableRateBps: sent 37, got 38"),
        ([{"sourceCurrency": "USD", "fixedFee": 11}], "[0].variableRateBps: sent 37, missing"),
        ([{**FEE, "fixedFee": True}], "[0].fixedFee: sent 11, got True"),
        ("USD", "$: sent 1 entries, got 'USD'"),
    ],
)
def test_every_field_sent_must_read_back_as_sent(answered, problem):
    found = differences([FEE], answered)
    assert found and found[0].startswith(problem), found


def test_a_null_sent_may_read_back_absent_or_null():
    assert echoes({"webhookEndpoint": None}, {})
    assert echoes({"webhookEndpoint": None}, {"webhookEndpoint": None})
    assert not echoes({"webhookEndpoint": None}, {"webhookEndpoint": "https://x.test"})


def test_nested_objects_are_compared_by_the_fields_sent():
    sent = {"cardTokenization2faConfig": {"brandName": "Acme"}}
    answered = {"cardTokenization2faConfig": {"brandName": "Acme", "supportUrl": None}}
    assert echoes(sent, answered)
    assert not echoes(sent, {"cardTokenization2faConfig": {"brandName": "Other"}})
