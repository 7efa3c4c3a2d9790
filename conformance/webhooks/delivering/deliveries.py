"""One delivery of an event: the exact bytes sent and the ``X-Service-Signature`` they carry.

A delivery is signed as the service signs (``signed``) or spoiled in one of the ways a
receiver must refuse (§5 Authentication: "verify the signature ... reject on failure"):
no header, an empty one, one that is not base64, a signature by another key, a valid
signature over other bytes (the body changed after signing), and a signature over a
re-serialised body. For the last, the body goes out pretty-printed while the signature
covers its compact JSON (what ``JSON.stringify``, ``json.dumps(..., separators=(",", ":"))``
or Go's ``json.Marshal`` give): a receiver that verifies its own re-serialisation of the
parsed body, instead of the bytes it received, accepts it.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field

from conformance.webhooks.delivering.event_bodies import Event
from conformance.webhooks.delivering.signing_key import SigningKey
from conformance.webhooks.sink.signatures import SIGNATURE_HEADER

__all__ = ["FORGERIES", "SIGNATURE_HEADER", "Delivery", "Forgery", "signed"]


@dataclass(frozen=True, slots=True)
class Delivery:
    """What is sent: the body bytes, the headers, and how it was signed (for messages)."""

    body: bytes
    headers: dict[str, str] = field(default_factory=dict)
    how: str = "signed by the service's key over the exact body"

    @property
    def event_id(self) -> str:
        envelope = json.loads(self.body)
        return str(envelope.get("id") or envelope.get("webhookId"))


def _headers(signature: str | None) -> dict[str, str]:
    headers = {"Content-Type": "application/json"}
    if signature is not None:
        headers[SIGNATURE_HEADER] = signature
    return headers


def signed(event: Event, key: SigningKey) -> Delivery:
    """The event as the service delivers it: its body signed by ``key``."""
    return Delivery(event.body, _headers(key.sign(event.body)))


@dataclass(frozen=True, slots=True)
class Forgery:
    """A way a delivery's signature fails, named for reports (``name``: the test's id)."""

    name: str
    how: str
    make: Callable[[Event, SigningKey], Delivery]

    def deliver(self, event: Event, key: SigningKey) -> Delivery:
        delivery = self.make(event, key)
        return Delivery(delivery.body, delivery.headers, self.how)


def _changed_after_signing(event: Event, key: SigningKey) -> Delivery:
    """Signed, then a value of the body changed, as a tampering relay would: a payment's
    amounts, or else the event's type."""
    signature = key.sign(event.body)
    envelope = json.loads(event.body)
    data = envelope.get("data")
    if isinstance(data, dict) and isinstance(data.get("sentAmount"), dict):
        for name in ("sentAmount", "receivedAmount"):
            data[name]["amount"] = int(data[name]["amount"]) * 10
    else:
        envelope["type"] = f"{envelope['type']}X"
    altered = json.dumps(envelope, separators=(",", ":"), ensure_ascii=False).encode()
    return Delivery(altered, _headers(signature))


def _over_reserialised(event: Event, key: SigningKey) -> Delivery:
    """The body sent pretty-printed; the signature over its compact re-serialisation."""
    envelope = json.loads(event.body)
    sent = json.dumps(envelope, indent=2, ensure_ascii=False).encode()
    compact = json.dumps(envelope, separators=(",", ":"), ensure_ascii=False).encode()
    return Delivery(sent, _headers(key.sign(compact)))


FORGERIES: tuple[Forgery, ...] = (
    Forgery(
        "no-signature-header",
        f"no {SIGNATURE_HEADER} header",
        lambda event, key: Delivery(event.body, _headers(None)),
    ),
    Forgery(
        "empty-signature",
        f"an empty {SIGNATURE_HEADER} header",
        lambda event, key: Delivery(event.body, _headers("")),
    ),
    Forgery(
        "malformed-base64",
        f"an {SIGNATURE_HEADER} that is not base64",
        lambda event, key: Delivery(event.body, _headers("not*base64!signature%%")),
    ),
    Forgery(
        "signed-by-another-key",
        "a signature over the exact body by another key than the service's",
        lambda event, key: signed(event, SigningKey.generate()),
    ),
    Forgery(
        "body-changed-after-signing",
        "a valid signature of the service's key over other bytes (the body was changed "
        "after signing)",
        _changed_after_signing,
    ),
    Forgery(
        "signed-over-reserialised-body",
        "a signature of the service's key over a re-serialisation of the body (its compact "
        "JSON), not over the bytes sent (pretty-printed)",
        _over_reserialised,
    ),
)
