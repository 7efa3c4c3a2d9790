"""The record of webhook deliveries: an append-only, thread-safe store.

One :class:`DeliveryStore` lives in the receiver process (the pytest controller). Readers in
any process see its :class:`Delivery` records through the control API, which serialises them
with :meth:`Delivery.to_json_dict` and :meth:`Delivery.from_json_dict`.
"""

from __future__ import annotations

import base64
import functools
import threading
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from conformance.exchange.decoding import DecodeProblem, decode_json
from conformance.ground.timestamps import parse_timestamp

__all__ = ["Delivery", "DeliveryStore", "dedupe_by_event_id"]


@dataclass(frozen=True, slots=True)
class Delivery:
    """One request received by the sink, kept exactly as it arrived.

    ``seq`` numbers deliveries in arrival order from 1; ``headers`` have lower-case names.
    The properties read the event envelope of §6 Events (``{id, type, timestamp, data}``, or
    the ``TEST`` event's ``{test, timestamp, webhookId, type}``) and return ``None`` where the
    body does not carry the field.
    """

    seq: int
    received_at: float
    method: str
    path: str
    headers: dict[str, str]
    body: bytes

    def __hash__(self) -> int:  # ``headers`` is a dict, so hash what identifies a delivery
        return hash((self.seq, self.received_at, self.body))

    @property
    def json(self) -> Any:
        """The parsed body, or ``None`` when it is not readable JSON (one that repeats a
        member included: it is ambiguous, so it satisfies no check)."""
        return _parsed(self.body)[0]

    @property
    def json_problem(self) -> str | None:
        """Why the body cannot be read as JSON (``None`` when it can)."""
        return _parsed(self.body)[1]

    def _envelope(self) -> dict[str, Any]:
        parsed = self.json
        return parsed if isinstance(parsed, dict) else {}

    @property
    def event_id(self) -> str | None:
        """The envelope ``id`` (``webhookId`` for the ``TEST`` event)."""
        envelope = self._envelope()
        for key in ("id", "webhookId"):
            value = envelope.get(key)
            if isinstance(value, str) and value:
                return value
        return None

    @property
    def event_type(self) -> str | None:
        """The envelope ``type``."""
        value = self._envelope().get("type")
        return value if isinstance(value, str) else None

    @property
    def timestamp(self) -> datetime | None:
        """The envelope ``timestamp`` as an aware datetime (naive values are taken as UTC)."""
        return parse_timestamp(self._envelope().get("timestamp"))

    @property
    def resource_id(self) -> str | None:
        """``data.id``: the id of the resource the event is about."""
        data = self._envelope().get("data")
        if isinstance(data, dict):
            value = data.get("id")
            if isinstance(value, str) and value:
                return value
        return None

    @property
    def event_key(self) -> tuple[str | None, str | None, str | None]:
        """What makes two deliveries one event: the envelope id, the type and the record the
        event is about (``data.id``). A redelivery repeats all three; the rest of a delivery
        (its headers, its signature, a timestamp or data restated) may differ, as the
        interface does not say they stay the same."""
        return (self.event_id, self.event_type, self.resource_id)

    @property
    def signature_header(self) -> str | None:
        """The ``X-Service-Signature`` header as received, or ``None``."""
        return self.headers.get("x-service-signature")

    def summary(self) -> str:
        """One line for failure messages: seq, type, event id and resource id."""
        parts = [f"#{self.seq}", self.event_type or "<no type>"]
        parts.append(f"id={self.event_id or '-'}")
        if self.resource_id:
            parts.append(f"resource={self.resource_id}")
        problem = self.json_problem
        if self.event_type is None and problem is not None:
            size = len(self.body)
            parts.append(f"{self.method} {self.path} ({size} bytes, unreadable: {problem})")
        return " ".join(parts)

    def to_json_dict(self) -> dict[str, Any]:
        """A JSON-safe dict (body as base64) for the control API."""
        return {
            "seq": self.seq,
            "received_at": self.received_at,
            "method": self.method,
            "path": self.path,
            "headers": dict(self.headers),
            "body_b64": base64.b64encode(self.body).decode("ascii"),
        }

    @classmethod
    def from_json_dict(cls, data: Mapping[str, Any]) -> Delivery:
        """Rebuild a delivery from :meth:`to_json_dict` output."""
        return cls(
            seq=int(data["seq"]),
            received_at=float(data["received_at"]),
            method=str(data["method"]),
            path=str(data["path"]),
            headers={str(k).lower(): str(v) for k, v in dict(data["headers"]).items()},
            body=base64.b64decode(data["body_b64"]),
        )


@functools.lru_cache(maxsize=4096)
def _parsed(body: bytes) -> tuple[Any, str | None]:
    """A delivery body decoded once (waiters read each delivery many times), through the
    bounded decoding layer: ``(value, None)``, or ``(None, why)`` for anything that is not
    readable JSON."""
    try:
        return decode_json(body), None
    except DecodeProblem as problem:
        return None, problem.received


def dedupe_by_event_id(deliveries: Iterable[Delivery]) -> list[Delivery]:
    """Keep the first arrival of each event; deliveries without an id are all kept.

    Redelivery of one envelope id is tolerated and counted once (DESIGN.md, Webhook sink):
    a redelivery repeats the id, the type and the record (:attr:`Delivery.event_key`). An
    id repeated on another event is not a redelivery: both are kept (so no test reads the
    second as never arrived), and the run's check of event ids names the reuse.
    """
    seen: set[tuple[str | None, str | None, str | None]] = set()
    kept: list[Delivery] = []
    for delivery in sorted(deliveries, key=lambda d: d.seq):
        if delivery.event_id is not None:
            if delivery.event_key in seen:
                continue
            seen.add(delivery.event_key)
        kept.append(delivery)
    return kept


def _normalise_headers(headers: Mapping[str, str] | Iterable[tuple[str, str]]) -> dict[str, str]:
    pairs = headers.items() if isinstance(headers, Mapping) else headers
    result: dict[str, str] = {}
    for name, value in pairs:
        key = name.lower()
        result[key] = f"{result[key]}, {value}" if key in result else value
    return result


class DeliveryStore:
    """Thread-safe append-only list of deliveries with a condition to wait on.

    ``seq`` values start at 1, so ``since(0)`` is everything. Waiting is by condition with a
    deadline, never by sleep.
    """

    def __init__(self) -> None:
        self._items: list[Delivery] = []
        self._cond = threading.Condition()
        self._waiting = 0
        self._closed = False

    def add(
        self,
        method: str,
        path: str,
        headers: Mapping[str, str] | Iterable[tuple[str, str]],
        body: bytes,
        received_at: float | None = None,
    ) -> Delivery:
        """Append a delivery, wake every waiter, and return the stored record."""
        stamp = time.time() if received_at is None else received_at
        normalised = _normalise_headers(headers)
        with self._cond:
            delivery = Delivery(
                seq=len(self._items) + 1,
                received_at=stamp,
                method=method,
                path=path,
                headers=normalised,
                body=bytes(body),
            )
            self._items.append(delivery)
            self._cond.notify_all()
        return delivery

    def since(self, seq: int) -> list[Delivery]:
        """Deliveries with a ``seq`` greater than ``seq``, in arrival order."""
        with self._cond:
            return self._items[max(seq, 0) :]

    def wait_after(self, seq: int, timeout: float) -> list[Delivery]:
        """Block until a delivery newer than ``seq`` exists or ``timeout`` passes.

        Returns the deliveries newer than ``seq`` (empty on timeout or after :meth:`close`).
        """
        deadline = time.monotonic() + max(timeout, 0.0)
        with self._cond:
            self._waiting += 1
            self._cond.notify_all()
            try:
                while len(self._items) <= max(seq, 0) and not self._closed:
                    remaining = deadline - time.monotonic()
                    if remaining <= 0:
                        break
                    self._cond.wait(remaining)
                return self._items[max(seq, 0) :]
            finally:
                self._waiting -= 1

    def wait_for_waiters(self, count: int, timeout: float) -> bool:
        """Block until at least ``count`` threads wait in :meth:`wait_after` (for tests)."""
        with self._cond:
            return self._cond.wait_for(lambda: self._waiting >= count, timeout)

    def close(self) -> None:
        """Wake every waiter; later waits return at once. Adding still works."""
        with self._cond:
            self._closed = True
            self._cond.notify_all()

    @property
    def last_seq(self) -> int:
        """The ``seq`` of the newest delivery (0 when empty)."""
        with self._cond:
            return len(self._items)

    def __len__(self) -> int:
        return self.last_seq
