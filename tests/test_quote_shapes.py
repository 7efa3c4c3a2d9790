"""``quote_shapes.probe``: one request per pair of shapes; a 400 drops an optional
pair with an advisory, never the prefunded corridor (internal account to external account)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from conformance.payments.quote_bodies import (
    INTERNAL,
    PULL,
    Route,
    account_destination,
    account_source,
    realtime_source,
    uma_destination,
)
from conformance.payments.quote_shapes import PROBE_AMOUNT, UNSUPPORTED_ADVISORY, probe

CORRIDOR = Route(account_source("ia", "USD"), account_destination("ea", "EUR"))
CORRIDOR_SAME = Route(account_source("ia", "USD"), account_destination("eb", "USD"))
PULLED = Route(account_source("ea", "USD", PULL), account_destination("ib", "EUR", INTERNAL))
JIT_UMA = Route(realtime_source("c", "USD"), uma_destination("umaAddress", "$a@b.io"), (1, 900))


@dataclass
class Answer:
    status: int
    content: bytes = b"{}"


class FakeMoney:
    """Answers 400 to every request whose source is in ``refused``, 201 otherwise."""

    def __init__(self, *refused: str) -> None:
        self.refused = refused
        self.sent: list[dict[str, Any]] = []

    def create_quote(self, body: dict[str, Any]) -> Answer:
        self.sent.append(body)
        source = body["source"].get("accountId") or body["source"]["sourceType"]
        return Answer(400, b'{"source": "unsupported"}') if source in self.refused else Answer(201)


def test_one_probe_per_pair_and_every_route_of_a_priced_pair_kept():
    money = FakeMoney()
    shapes = probe(money, [CORRIDOR, CORRIDOR_SAME, PULLED, JIT_UMA])
    assert shapes.routes == [CORRIDOR, CORRIDOR_SAME, PULLED, JIT_UMA]
    assert [a.route for a in shapes.answers] == [CORRIDOR, PULLED, JIT_UMA]
    assert [b["lockedCurrencyAmount"] for b in money.sent] == [PROBE_AMOUNT] * 2 + [900]
    assert shapes.unsupported == []


def test_a_refused_optional_pair_is_dropped_with_an_advisory():
    shapes = probe(FakeMoney("ea", "REALTIME_FUNDING"), [CORRIDOR, PULLED, JIT_UMA])
    assert shapes.routes == [CORRIDOR]
    assert len(shapes.unsupported) == 2
    assert all(UNSUPPORTED_ADVISORY in note for note in shapes.unsupported)


def test_the_prefunded_corridor_is_never_dropped():
    shapes = probe(FakeMoney("ia"), [CORRIDOR])
    assert shapes.routes == [CORRIDOR] and shapes.unsupported == []
    assert shapes.answers[0].response.status == 400  # the test then fails on it
