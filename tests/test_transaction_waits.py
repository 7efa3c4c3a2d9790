"""Waits on transactions end as soon as the awaited state can no longer happen."""

from __future__ import annotations

import time
from typing import Any

import pytest

from conformance.contract.failures import ConformanceFailure
from conformance.exchange.list_pages import Listing
from conformance.ground.profile import TargetProfile
from conformance.payments.transaction_history import TransactionHistory, is_final

# far longer than the test may take: a wait that runs out fails the bound below
PROFILE = TargetProfile(base_url="http://127.0.0.1:9/2025-10-13", webhook_timeout=600)


class Listed(TransactionHistory):
    """Transaction history over a fixed list (no target)."""

    def __init__(self, transactions: list[dict[str, Any]]) -> None:
        self.profile = PROFILE
        self._listed = transactions

    def transactions(self, customer_id: str, **filters: str) -> list[dict[str, Any]]:
        return self._listed

    def listing(self, customer_id: str, **filters: str) -> Listing:
        return Listing(items=self._listed, complete=True, path="/transactions")


def wait(status: str, until: Any) -> tuple[ConformanceFailure, float]:
    history = Listed([{"id": "Transaction:1", "status": status}])
    started = time.monotonic()
    with pytest.raises(ConformanceFailure) as info:
        history.wait_for_transaction("Customer:1", "Transaction:1", until, why="it settles")
    return info.value, time.monotonic() - started


def test_a_status_outside_the_stated_set_fails_at_once():
    failure, elapsed = wait("WEIRD_STATUS", lambda t: is_final(t, "status"))
    assert failure.clause == "§2 Transaction" and "WEIRD_STATUS" in str(failure)
    assert elapsed < 60


def test_a_final_state_other_than_the_awaited_one_fails_at_once():
    failure, elapsed = wait("COMPLETED", lambda t: t.get("status") == "FAILED")
    assert "final state" in str(failure)
    assert elapsed < 60


def test_the_awaited_state_is_returned():
    history = Listed([{"id": "Transaction:1", "status": "COMPLETED"}])
    found = history.wait_for_transaction(
        "Customer:1", "Transaction:1", lambda t: is_final(t, "status"), why="it settles"
    )
    assert found["status"] == "COMPLETED"
