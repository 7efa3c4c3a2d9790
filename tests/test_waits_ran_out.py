"""A wait that ran out is not waited again (conformance/exchange/waits.py): the next test
that needs the same thing ends at once, with the failure charged to its requirement."""

from __future__ import annotations

import ast
import time
from pathlib import Path

import pytest

import conformance
from conformance.accounts import ownership
from conformance.cards import events as cards
from conformance.contract.failures import ConformanceFailure
from conformance.contract.requirements import default_catalogue
from conformance.customers import events as customer_events
from conformance.exchange.list_pages import Listing
from conformance.ground.profile import TargetProfile
from conformance.payments import events as payment_events
from conformance.payments import incoming
from conformance.payments.events import OUTGOING, STATUS_EVENTS
from conformance.payments.funding import PROVISIONING_REQUIREMENT, Funding
from conformance.payments.transaction_history import SETTLEMENT_REQUIREMENT, TransactionHistory
from conformance.suites.webhooks.test_invitation_events import AWAITED as AWAITED_CLAIM
from conformance.webhooks.event_trigger import AWAITED as AWAITED_TEST
from tests.answering_client import BASE, client_answering

WAIT_S = 0.5


def _funding() -> Funding:
    client = client_answering(lambda request: pytest.fail(f"no request expected: {request}"))
    profile = TargetProfile(base_url=BASE, webhook_timeout=WAIT_S)
    funding = Funding(client, profile, customers=None, external_accounts=None)  # type: ignore[arg-type]
    # the target lists the account, PENDING, forever: provisioning never completes
    pending = [{"id": "InternalAccount:1", "currency": "USD", "type": "INTERNAL_FIAT",
                "status": "PENDING"}]  # fmt: skip
    funding.internal_accounts = lambda customer_id: pending  # type: ignore[method-assign]
    return funding


def test_a_second_wait_for_an_account_that_never_became_active_ends_at_once():
    funding = _funding()
    started = time.monotonic()
    with pytest.raises(ConformanceFailure) as first:
        funding.active_account("Customer:1", "USD")
    assert time.monotonic() - started >= WAIT_S
    assert first.value.charged_to == PROVISIONING_REQUIREMENT
    started = time.monotonic()
    with pytest.raises(ConformanceFailure) as second:
        funding.active_account("Customer:2", "USD")
    assert time.monotonic() - started < WAIT_S / 5
    assert second.value.charged_to == PROVISIONING_REQUIREMENT
    assert second.value.cause == first.value.cause and "not waited for again" in str(second.value)


def test_a_second_wait_for_an_ordinary_payout_that_never_settled_ends_at_once():
    client = client_answering(lambda request: pytest.fail(f"no request expected: {request}"))
    history = TransactionHistory(client, TargetProfile(base_url=BASE, webhook_timeout=WAIT_S))
    processing = [{"id": "Transaction:1", "status": "PROCESSING"},
                  {"id": "Transaction:2", "status": "PROCESSING"}]  # fmt: skip
    history.listing = lambda customer_id, **filters: Listing(  # type: ignore[method-assign]
        items=processing, complete=True, path="/transactions"
    )
    started = time.monotonic()
    with pytest.raises(ConformanceFailure) as first:
        history.completed("Customer:1", "Transaction:1")
    assert time.monotonic() - started >= WAIT_S
    assert first.value.charged_to == SETTLEMENT_REQUIREMENT
    started = time.monotonic()
    with pytest.raises(ConformanceFailure) as second:
        history.completed("Customer:1", "Transaction:2")
    assert time.monotonic() - started < WAIT_S / 5
    assert second.value.charged_to == SETTLEMENT_REQUIREMENT
    # a wait for a transfer of no named kind (a slow scenario) is waited out each time
    started = time.monotonic()
    with pytest.raises(ConformanceFailure):
        history.settled("Customer:1", "Transaction:2")
    assert time.monotonic() - started >= WAIT_S


def test_every_webhook_wait_is_charged_to_a_requirement_of_the_catalogue():
    """What each event reader awaits names a requirement that exists, and the words (the
    key a later wait ends at once by) differ where the requirement does."""
    catalogue = default_catalogue()
    payments = [payment_events.awaited({OUTGOING + s}) for s in STATUS_EVENTS]
    refunds = payment_events.awaited({OUTGOING + "REFUND_COMPLETED", OUTGOING + "REFUND_FAILED"})
    customers = [customer_events.awaited(t) for t in customer_events.EMITTED_BY]
    waits = [*payments, refunds, *customers, AWAITED_TEST, AWAITED_CLAIM]
    for awaited in waits:
        assert awaited.requirement in catalogue, awaited
        assert all(owner in catalogue for owner in awaited.owners), awaited
    named = [
        cards.REQUIREMENT,
        incoming.REFUND_REQUIREMENT,
        *ownership.OUTCOME_REQUIREMENTS.values(),
    ]
    assert all(rid in catalogue for rid in named), named
    keys = {}
    for awaited in waits:
        assert keys.setdefault(awaited.what, awaited.requirement) == awaited.requirement
    assert refunds.requirement == "REFUND-OUTGOING-LIFECYCLE" and not refunds.owners
    assert payments[1].requirement == "TRANSACTION-PROCESSING-TO-COMPLETED"
    assert payments[1].owners == ("WEBHOOK-OUTGOING-PAYMENT-STATUS",)


# waits that state nothing on purpose: the probe proves that deliveries reach the sink (it
# must wait each time), and the view's convenience for the kit's own tests; the store's is a
# threading.Condition's
UNSTATED = {
    ("run/webhook_sink.py", "wait_for"),
    ("webhooks/sink/view.py", "wait_for"),
    ("webhooks/sink/store.py", "wait_for"),
}


def test_every_webhook_wait_of_the_suite_states_what_it_awaits():
    """A wait without ``awaited=`` would wait out its deadline in every test that makes it."""
    package = Path(conformance.__file__).parent
    unstated = []
    for path in sorted(package.rglob("*.py")):
        where = path.relative_to(package).as_posix()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Attribute):
                continue
            name = node.func.attr
            if name not in ("wait_for", "wait_for_all") or (where, name) in UNSTATED:
                continue
            if not any(k.arg == "awaited" for k in node.keywords):
                unstated.append(f"{where}:{node.lineno} {name}")
    assert not unstated, unstated
