"""What the whole run's events say about their own identity and records (§5, §6).

Two checks read every authentic delivery of a run:

- an envelope ``id`` names one event (:func:`reused_ids`): a repeated id with the same type
  and record is a redelivery (the sink counts it once), one with another type or record is
  a second event under the first one's id;
- an event is about a record of the platform it went to (:class:`RecordOwners`). Where
  the platform can read the record back one by one (customers: ``GET
  /customers/{customerId}``, and no operation removes one), its own answer tells: 2xx is
  its record, 403 or 404 is not (anything else, a 5xx or no answer, judges nothing). Other
  records are judged only when the second platform's answers stated them to this process
  and the platform's own never did (the cross-check ledger's memory): a record the suite
  never read is not judged, as the suite cannot tell whose it is.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from urllib.parse import quote

from conformance.contract.failures import ConformanceFailure
from conformance.exchange.client import TargetClient
from conformance.webhooks.sink import Delivery

__all__ = ["NOT_THEIRS", "SCRATCH_PATH", "Misdirected", "RecordOwners", "reused_ids"]

SCRATCH_PATH = "/scratch"
"""Where below the sink's URL a test that changes ``webhookEndpoint`` points a platform
(perhaps the second): what arrives there is not judged as the registered platform's."""

NOT_THEIRS = (403, 404)
"""The answers by which a platform says a record is not one it can read."""


def reused_ids(deliveries: Iterable[Delivery]) -> list[tuple[Delivery, Delivery]]:
    """``(first, other)`` for each delivery whose envelope id an earlier delivery carried
    about another event (another type or record; :attr:`Delivery.event_key`), in arrival
    order. Redeliveries (the same id, type and record) are not reuses, however many."""
    first: dict[str, Delivery] = {}
    found: list[tuple[Delivery, Delivery]] = []
    for delivery in sorted(deliveries, key=lambda d: d.seq):
        event_id = delivery.event_id
        if event_id is None:
            continue
        earlier = first.setdefault(event_id, delivery)
        if earlier.event_key != delivery.event_key:
            found.append((earlier, delivery))
    return found


@dataclass(frozen=True, slots=True)
class Misdirected:
    """An event about a record the platform does not have, and whose record it is."""

    delivery: Delivery
    own_status: int | None  # None: judged by what the answers stated, not by a GET
    second_status: int | None  # the second platform's answer for the record, when asked

    def summary(self) -> str:
        """One line: the event, and what each platform answered for its record."""
        if self.own_status is None:
            return (
                f"{self.delivery.summary()}: the second platform's record (its answers "
                "stated it; this platform's never did)"
            )
        whose = (
            f"the second platform's record (its GET answered {self.second_status})"
            if self.second_status is not None and 200 <= self.second_status < 300
            else "a record this platform never had"
        )
        return f"{self.delivery.summary()}: {whose}; this platform's GET answered {self.own_status}"


class RecordOwners:
    """Asks each platform, once per record, whether a record an event is about is its own."""

    PATHS = {"Customer": "/customers/{}"}

    def __init__(self, client: TargetClient, second: TargetClient | None) -> None:
        self._client = client
        self._second = second
        self._answers: dict[tuple[int, str], int | None] = {}

    @classmethod
    def judged(cls, delivery: Delivery) -> bool:
        """Whether the record ``delivery`` is about can be asked for (its type has a GET)."""
        record = delivery.resource_id or ""
        return record.partition(":")[0] in cls.PATHS and ":" in record

    def _status(self, which: TargetClient, record: str) -> int | None:
        key = (id(which), record)
        if key not in self._answers:
            kind, _, _ = record.partition(":")
            path = self.PATHS[kind].format(quote(record, safe=":"))
            try:
                self._answers[key] = which.get(path, validate=False).status
            except ConformanceFailure:  # no answer: nothing is judged from it
                self._answers[key] = None
        return self._answers[key]

    def _stated_by_second_only(self, record: str) -> bool:
        if self._second is None or self._second.credentials is None:
            return False
        second = (self._second.base_url, self._second.credentials.client_id)
        own = self._client.credentials
        ledger = self._client.state.ledger
        mine = own is not None and ledger.knows((self._client.base_url, own.client_id), record)
        return ledger.knows(second, record) and not mine

    def misdirected(self, deliveries: Iterable[Delivery]) -> list[Misdirected]:
        """The deliveries about a record this platform says is not its own."""
        found: list[Misdirected] = []
        for delivery in deliveries:
            if not self.judged(delivery):
                if delivery.resource_id and self._stated_by_second_only(delivery.resource_id):
                    found.append(Misdirected(delivery, None, None))
                continue
            record = str(delivery.resource_id)
            own = self._status(self._client, record)
            if own not in NOT_THEIRS:
                continue
            second = None if self._second is None else self._status(self._second, record)
            found.append(Misdirected(delivery, int(own or 0), second))
        return found
