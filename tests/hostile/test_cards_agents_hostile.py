"""The card, agent and invitation helpers hold every answer as untrusted: malformed adapter
answers and target bodies become clause failures (ConformanceFailure), never raw Python
exceptions."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import httpx
import pytest

from conformance.agents.flows import Agents
from conformance.cards.flows import Card, Cards
from conformance.contract.failures import ConformanceFailure
from conformance.invitations.flows import Invitations, uma_addresses
from tests.answering_client import client_answering

GARBAGE: list[Any] = [None, [], "x", 3, {"id": 3}, {"id": ""}, {"status": "PENDING"}]


def raw(status: int, body: bytes) -> Callable[[httpx.Request], httpx.Response]:
    return lambda request: httpx.Response(status, content=body)


CARD = Card({"id": "Card:1"}, "Customer:1", "InternalAccount:1", "USD")


@pytest.mark.parametrize("answer", GARBAGE)
def test_malformed_adapter_answers_about_cards_fail_a_clause(answer: Any) -> None:
    cards = Cards(client_answering(raw(200, b"{}")), None, None, lambda *a, **k: answer, 0.1)  # type: ignore[arg-type]
    with pytest.raises(ConformanceFailure, match="§2"):
        cards.authorize(CARD, 100)
    with pytest.raises(ConformanceFailure, match="§2"):
        cards.merchant_return(CARD, "Transaction:1", 1)


@pytest.mark.parametrize(
    "body",
    [b"not json", b"[1, 2]", b'{"data": "x"}', b'{"data": [1, null, "x"]}', b"9" * 5000],
)
def test_malformed_card_lists_fail_a_clause(body: bytes) -> None:
    cards = Cards(client_answering(raw(200, body)), None, None, lambda *a, **k: None, 0.1)  # type: ignore[arg-type]
    with pytest.raises(ConformanceFailure):
        cards.row(CARD, "Transaction:1")


@pytest.mark.parametrize("code", [None, "", 7, ["x"]])
def test_malformed_device_codes_fail_a_clause(code: Any) -> None:
    agents = Agents(client_answering(raw(200, b"{}")), lambda *a, **k: code)
    with pytest.raises(ConformanceFailure, match="§4"):
        agents.session("Customer:1")


@pytest.mark.parametrize(
    "status, body",
    [(200, b"<html>"), (200, b"[]"), (200, b'{"accessToken": 5}'), (500, b"{}"), (200, b"")],
)
def test_malformed_redeem_answers_fail_a_clause(status: int, body: bytes) -> None:
    agents = Agents(client_answering(raw(status, body)), lambda *a, **k: "CODE-1")
    with pytest.raises(ConformanceFailure):
        agents.session("Customer:1")


@pytest.mark.parametrize("answer", GARBAGE)
def test_malformed_invitation_records_fail_a_clause(answer: Any) -> None:
    invitations = Invitations(lambda *a, **k: answer)
    if isinstance(answer, dict) and isinstance(answer.get("id"), str) and answer["id"]:
        return
    with pytest.raises(ConformanceFailure, match="§2"):
        invitations.create("Customer:1")


def test_uma_addresses_are_found_in_any_shape() -> None:
    nested: Any = {"a": [{"b": "$ann@pay.example.com"}, 3, None], "c": "$nope", "d": {"e": []}}
    assert uma_addresses(nested) == ["$ann@pay.example.com"]
    assert uma_addresses(json.loads("[" * 50 + "]" * 50)) == []
