"""A wait that ran out is not waited again (conformance/exchange/waits.py): the next test
that needs the same thing ends at once, with the failure charged to its requirement."""

from __future__ import annotations

import time

import pytest

from conformance.contract.failures import ConformanceFailure
from conformance.exchange.list_pages import Listing
from conformance.ground.profile import TargetProfile
from conformance.payments.funding import PROVISIONING_REQUIREMENT, Funding
from conformance.payments.transaction_history import SETTLEMENT_REQUIREMENT, TransactionHistory
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
