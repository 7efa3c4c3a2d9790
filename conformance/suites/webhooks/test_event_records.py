"""§6 Events — what every event of the run says of itself: its envelope id names one event,
and its ``data`` is a record of the platform it went to (§5: one platform's credentials
reach only its records).

Both tests read the whole run's deliveries, after the other tests. So that each has events
to read when it runs alone, the module first walks an individual and a business to a
decision (their ``CUSTOMER.*`` events), with a customer of the second platform created
before, when the profile has one.
"""

from __future__ import annotations

from urllib.parse import urlsplit

import pytest

from conformance.contract import clauses
from conformance.contract.failures import check
from conformance.customers.bodies import individual_body
from conformance.customers.verification_checks import decided_customers, events_of_walks
from conformance.webhooks.event_checks import listing
from conformance.webhooks.event_records import SCRATCH_PATH, RecordOwners, reused_ids

pytestmark = [pytest.mark.resource("Webhook"), pytest.mark.writes]

CLAUSE = clauses.EVENTS


@pytest.fixture(scope="module")
def decided(client, profile, onboarding):
    """A customer of the second platform (when there is one), then an individual and a
    business of this platform walked to a decision."""
    if profile.second is not None:
        client.with_credentials(profile.second).post("/customers", json=individual_body())
    return decided_customers(onboarding)


@pytest.fixture
def walked(decided, customer_events):
    """The walks' events, arrived: this run has events to read."""
    for _ in events_of_walks(customer_events, decided):
        pass


@pytest.mark.requirement("WEBHOOK-EVENT-ID-ONE-EVENT")
@pytest.mark.reads_the_run
def test_each_event_id_names_one_event(walked, run_webhook_sinks):
    """The same id with the same type and record is a redelivery (it passes however often
    it comes); the same id on another event is a defect, named with both events."""
    reused = [
        (n, first, other)
        for n, sink in enumerate(run_webhook_sinks, 1)
        for first, other in reused_ids(sink.deliveries())
    ]
    prefix = (lambda n: f"sink {n}: ") if len(run_webhook_sinks) > 1 else (lambda n: "")
    check(
        not reused,
        CLAUSE,
        "an event's envelope id names one event: the same id again is a redelivery of it, "
        "with the same type about the same record",
        observed=_Plain(
            f"{len(reused)} deliveries carry the id of an earlier event of another type or "
            "about another record"
        ),
        hint="the same id on different events:\n"
        + listing([f"{prefix(n)}{b.summary()} after {a.summary()}" for n, a, b in reused])
        + "\n  give each event an id of its own; a redelivery repeats the event it delivers "
        "(platforms drop a repeated id as processed already)",
    )


@pytest.mark.requirement("WEBHOOK-DATA-OWN-RECORDS")
@pytest.mark.reads_the_run
def test_events_are_about_this_platforms_records(walked, client, profile, webhook_sink):
    """Each event about a customer is about one this platform can read
    (``GET /customers/{customerId}`` answers 2xx); 403 or 404 there, the record is another
    platform's (the second platform's GET reads it) or one this platform never had. Only
    the deliveries to the URL the run registered count: a test of PATCH /config points a
    platform, maybe the second, at the sink's path ``/scratch`` for a while."""
    second = None if profile.second is None else client.with_credentials(profile.second)
    owners = RecordOwners(client, second)
    deliveries = [
        d for d in webhook_sink.deliveries() if not urlsplit(d.path).path.endswith(SCRATCH_PATH)
    ]
    misdirected = owners.misdirected(deliveries)
    judged = sum(1 for d in deliveries if d.resource_id)
    check(
        not misdirected,
        CLAUSE,
        "a platform's events are about its own records: data is this platform's Customer, "
        "Transaction, ..., never another platform's record or one it never had",
        observed=_Plain(
            f"{len(misdirected)} of the {judged} events about a record are about one that is "
            "not this platform's"
        ),
        hint="events about records not this platform's:\n"
        + listing([m.summary() for m in misdirected])
        + "\n  send each platform the events of its own records only, to its own "
        "webhookEndpoint",
    )


class _Plain(str):
    """Shown as it is in a failure message (no quotes)."""

    def __repr__(self) -> str:
        return str(self)
