"""The sink's view feeds the cross-check ledger with authentic payment events only."""

from __future__ import annotations

import uuid

import httpx
import pytest
from cryptography.hazmat.primitives.asymmetric import ec

from conformance.contract.failures import ConformanceFailure
from conformance.exchange.ledger import Ledger, Sighting
from conformance.webhooks.sink import SinkServer, SinkView

from .sink_helpers import envelope, sign_ec, transaction_id


def _post(
    http: httpx.Client, sink: SinkServer, body: bytes, key: ec.EllipticCurvePrivateKey
) -> None:
    headers = {"Content-Type": "application/json", "X-Service-Signature": sign_ec(key, body)}
    assert http.post(sink.url, content=body, headers=headers).status_code == 200


def _sent(amount: int) -> dict:
    return {
        "status": "COMPLETED",
        "sentAmount": {"amount": amount, "currency": {"code": "USD", "decimals": 2}},
    }


@pytest.fixture
def scope() -> tuple[str, str]:
    """A platform of its own."""
    return (f"http://target-{uuid.uuid4()}", "token")


@pytest.fixture
def ledger() -> Ledger:
    """The session's ledger (a run's is on its session state)."""
    return Ledger()


def _stated(ledger: Ledger, scope: tuple[str, str], txn: str, amount: int) -> None:
    seen = Sighting("GET", "/transactions", 200, "a test", 1.8e9, 0.0, 0.0)
    assert ledger.observe(scope, {"id": txn, **_sent(amount)}, seen) == []


def test_an_event_whose_data_disagrees_with_an_answer_fails_the_test_reading_it(
    sink: SinkServer, http: httpx.Client, ec_key: ec.EllipticCurvePrivateKey, scope, ledger
) -> None:
    txn = transaction_id()
    _stated(ledger, scope, txn, 100)
    _post(http, sink, envelope("OUTGOING_PAYMENT.COMPLETED", txn, data=_sent(101)), ec_key)
    with SinkView(sink.control_url, ec_key.public_key(), ledger_scope=scope, ledger=ledger) as view:
        view.deliveries()  # read by another wait first: the failure waits for its reader
        with pytest.raises(ConformanceFailure, match=r"§6 Events: .*sentAmount.amount") as caught:
            view.wait_for_event("OUTGOING_PAYMENT.COMPLETED", txn, timeout=5)
        assert "GET /transactions -> 200" in str(caught.value) and "event: #1" in str(caught.value)
        with pytest.raises(ConformanceFailure):
            view.events_for(txn)


def test_a_forged_event_never_feeds_the_ledger(
    sink: SinkServer, http: httpx.Client, ec_key, other_ec_key, scope, ledger
) -> None:
    txn = transaction_id()
    _post(http, sink, envelope("OUTGOING_PAYMENT.COMPLETED", txn, data=_sent(999)), other_ec_key)
    _post(http, sink, envelope("OUTGOING_PAYMENT.COMPLETED", txn, data=_sent(100)), ec_key)
    with SinkView(sink.control_url, ec_key.public_key(), ledger_scope=scope, ledger=ledger) as view:
        assert view.wait_for_event("OUTGOING_PAYMENT.COMPLETED", txn, timeout=5).seq == 2
    _stated(ledger, scope, txn, 100)  # agrees with the authentic one; the forged 999 was never kept


def test_a_view_without_a_platform_feeds_nothing(
    sink: SinkServer, http: httpx.Client, ec_key, scope, ledger
) -> None:
    txn = transaction_id()
    held = len(ledger)
    _post(http, sink, envelope("OUTGOING_PAYMENT.COMPLETED", txn, data=_sent(7)), ec_key)
    with SinkView(sink.control_url, ec_key.public_key(), ledger=ledger) as view:
        view.wait_for_event("OUTGOING_PAYMENT.COMPLETED", txn, timeout=5)
    assert len(ledger) == held
