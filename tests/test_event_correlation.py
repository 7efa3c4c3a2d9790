"""How the suite ties events whose payload is not shown to a resource and reads their status
(conformance: webhooks.event_checks, accounts.ownership, customers.events)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from conformance.accounts.ownership import EVENT, check_new_status, event_status, is_about
from conformance.contract.failures import ConformanceFailure
from conformance.customers.events import mentions
from conformance.webhooks.event_checks import mentions_anywhere, names_resource
from conformance.webhooks.sink import Delivery

ACCOUNT = "ExternalAccount:5b0c9a52-8f0e-4c55-9d0a-4a36e1c3a1f2"
OTHER = "ExternalAccount:0d3f3c0e-7b4b-41a7-9c8a-2f8f6f0f1b11"


def delivery(data: Any, seq: int = 1, stamp: str = "2025-01-01T00:00:00Z") -> Delivery:
    body = {"id": f"Webhook:{seq}", "type": EVENT, "timestamp": stamp, "data": data}
    return Delivery(seq, 0.0, "POST", "/", {}, json.dumps(body).encode())


@pytest.mark.parametrize(
    "data",
    [
        {"id": ACCOUNT, "status": "ACTIVE"},
        {"externalAccountId": ACCOUNT},
        {"accountId": ACCOUNT},
        {"externalAccount": {"id": ACCOUNT}},
        {"account": {"id": ACCOUNT}},
    ],
)
def test_an_event_naming_the_account_is_about_it(data):
    keys, objects = ("externalAccountId", "accountId"), ("externalAccount", "account")
    assert names_resource(delivery(data), ACCOUNT, keys, objects)
    assert is_about(delivery(data), ACCOUNT)


def test_an_event_mentioning_the_account_anywhere_is_about_it():
    data = {"change": {"subjects": [{"ref": f"external-account {ACCOUNT}"}]}}
    assert not names_resource(delivery(data), ACCOUNT, ("accountId",), ("account",))
    assert mentions_anywhere(delivery(data), ACCOUNT)
    assert is_about(delivery(data), ACCOUNT)


@pytest.mark.parametrize("data", [{"id": OTHER}, {"account": {"id": OTHER}}, [OTHER], None])
def test_an_event_about_another_account_is_not_about_it(data):
    assert not is_about(delivery(data), ACCOUNT)


def test_customer_events_keep_their_own_keys():
    customer = "Customer:1"
    assert mentions(delivery({"customerId": customer}), customer)
    assert mentions(delivery({"customer": {"id": customer}}), customer)
    assert not mentions(delivery({"accountId": customer}), customer)


@pytest.mark.parametrize(
    ("data", "status"),
    [
        ({"id": ACCOUNT, "status": "ACTIVE"}, "ACTIVE"),
        ({"accountId": ACCOUNT, "oldStatus": "ACTIVE", "newStatus": "UNVERIFIED"}, "UNVERIFIED"),
        ({"externalAccount": {"id": ACCOUNT, "status": "UNVERIFIED"}}, "UNVERIFIED"),
        ({"account": {"id": ACCOUNT, "newStatus": "ACTIVE"}}, "ACTIVE"),
        ({"id": ACCOUNT, "status": "SUCCEEDED"}, None),  # not an ExternalAccount status
        ({"id": ACCOUNT}, None),
    ],
)
def test_the_new_status_is_read_leniently(data, status):
    assert event_status(delivery(data)) == status


def test_a_contradicting_status_fails_with_the_clause():
    changed = [delivery({"accountId": ACCOUNT, "newStatus": "ACTIVE"})]
    with pytest.raises(ConformanceFailure, match="§3 External account"):
        check_new_status(changed, "UNVERIFIED", "a failed attempt", [].append)


def test_the_latest_readable_status_must_be_the_new_one():
    def walk(first: str, second: str) -> list[Delivery]:
        return [
            delivery({"id": ACCOUNT, "status": first}, 1, "2025-01-01T00:00:00Z"),
            delivery({"id": ACCOUNT, "status": second}, 2, "2025-01-01T00:00:01Z"),
        ]

    pending = "PENDING_OWNERSHIP_VERIFICATION"
    with pytest.raises(ConformanceFailure):
        check_new_status(walk("UNVERIFIED", pending), "UNVERIFIED", "a failed attempt", print)
    advisories: list[str] = []
    check_new_status(
        walk(pending, "UNVERIFIED"), "UNVERIFIED", "a failed attempt", advisories.append
    )
    assert "2 distinct" in advisories[0]


def test_an_unreadable_status_is_an_advisory_not_a_failure():
    advisories: list[str] = []
    changed = [delivery({"note": f"changed {ACCOUNT}"})]
    check_new_status(changed, "ACTIVE", "success", advisories.append)
    assert len(advisories) == 1 and "not shown" in advisories[0]
