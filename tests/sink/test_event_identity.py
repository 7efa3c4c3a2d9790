"""An envelope id names one event (``webhooks/event_records.py``, ``sink/store.py``): a
redelivery passes however often it comes, whatever its headers, signature or timestamp;
the same id on another event is named, and both events stay readable."""

from __future__ import annotations

from conformance.webhooks.event_records import reused_ids
from conformance.webhooks.sink import dedupe_by_event_id

from .sink_helpers import delivery, envelope

TXN = "Transaction:00000000-0000-4000-8000-000000000001"
OTHER = "Transaction:00000000-0000-4000-8000-000000000002"


def test_a_redelivery_passes_however_often_it_comes():
    # each attempt signed anew, restating the event (another timestamp, serialised apart)
    attempts = [
        delivery(n, envelope("OUTGOING_PAYMENT.COMPLETED", TXN, at=n, event_id="Webhook:a"),
                 x_service_signature=f"sig-{n}", x_attempt=str(n))
        for n in range(1, 8)
    ]  # fmt: skip
    assert reused_ids(attempts) == []
    assert [d.seq for d in dedupe_by_event_id(attempts)] == [1]


def test_one_id_on_another_type_or_record_is_named_and_both_are_kept():
    first = delivery(1, envelope("OUTGOING_PAYMENT.PROCESSING", TXN, event_id="Webhook:a"))
    again = delivery(2, envelope("OUTGOING_PAYMENT.PROCESSING", TXN, event_id="Webhook:a"))
    other_type = delivery(3, envelope("OUTGOING_PAYMENT.COMPLETED", TXN, event_id="Webhook:a"))
    other_record = delivery(4, envelope("OUTGOING_PAYMENT.PROCESSING", OTHER, event_id="Webhook:a"))
    found = reused_ids([other_record, first, again, other_type])
    assert [(a.seq, b.seq) for a, b in found] == [(1, 3), (1, 4)]
    kept = dedupe_by_event_id([first, again, other_type, other_record])
    assert [d.seq for d in kept] == [1, 3, 4]


def test_an_event_about_a_record_only_the_second_platform_stated_is_misdirected():
    """Records no GET reads back one by one (a Transaction) are judged by what the answers
    stated: the second platform's and never this platform's is another platform's record;
    one the suite never read is not judged."""
    from conformance.contract.schemas import default_registry
    from conformance.exchange.client import ExchangeLog, TargetClient
    from conformance.exchange.evidence import Redactor
    from conformance.exchange.ledger import Sighting
    from conformance.exchange.run_state import ExchangeState
    from conformance.ground.profile import Credentials
    from conformance.webhooks.event_records import RecordOwners

    state = ExchangeState()  # one session: both platforms' clients share its ledger

    def client(token: str) -> TargetClient:
        return TargetClient(
            base_url="http://target.invalid", credentials=Credentials(token, "s"), timeout=1,
            registry=default_registry(), log=ExchangeLog(), redactor=Redactor(), state=state,
        )  # fmt: skip

    own, second = client("tok-own"), client("tok-second")
    seen = Sighting("GET", "/transactions", 200, None, 1.0, 0.0, 0.5)
    theirs = "Transaction:00000000-0000-4000-8000-0000000000aa"
    state.ledger.observe(("http://target.invalid", "tok-second"), {"id": theirs}, seen)
    state.ledger.observe(("http://target.invalid", "tok-own"), {"id": TXN}, seen)
    events = [
        delivery(1, envelope("OUTGOING_PAYMENT.COMPLETED", TXN, event_id="Webhook:1")),
        delivery(2, envelope("OUTGOING_PAYMENT.COMPLETED", theirs, event_id="Webhook:2")),
        delivery(3, envelope("OUTGOING_PAYMENT.COMPLETED", OTHER, event_id="Webhook:3")),
    ]
    found = RecordOwners(own, second).misdirected(events)
    assert [m.delivery.seq for m in found] == [2]
    assert "the second platform's record" in found[0].summary()
