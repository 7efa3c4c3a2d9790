"""One delivery of an event: the exact bytes sent and the ``X-Service-Signature`` they carry.

A delivery is signed as the service signs (``signed``) or spoiled in one of the ways a
receiver must refuse (§5 Authentication: "verify the signature ... reject on failure"):
no header, an empty one, one that is not base64, a signature by another key, a valid
signature over other bytes (the body changed after signing), and a signature over a
re-serialised body. For the last, the body goes out pretty-printed while the signature
covers its compact JSON (what ``JSON.stringify``, ``json.dumps(..., separators=(",", ":"))``
or Go's ``json.Marshal`` give): a receiver that verifies its own re-serialisation of the
parsed body, instead of the bytes it received, accepts it.

Five more each catch one mistake real receivers make (``mistake`` names it): trusting an
event that carries ``"test": true``; remembering a signature that verified once; answering
an event id already seen before verifying; falling back to a sorted-keys re-serialisation;
stripping surrounding whitespace. The two stateful ones first send the authentic event
(``replays``), which must be acknowledged, then the forgery. Each forgery's bytes are made
only from the event and the two keys given, so a fixed event and fixed keys give fixed
bytes (the shipped vectors, ``delivering/vectors.py``).
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

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


def _compact(envelope: dict[str, Any], *, sort_keys: bool = False) -> bytes:
    return json.dumps(
        envelope, separators=(",", ":"), ensure_ascii=False, sort_keys=sort_keys
    ).encode()


@dataclass(frozen=True, slots=True)
class Forgery:
    """A way a delivery's signature fails, named for reports (``name``: the test's id).

    ``make(event, key, other)`` builds the delivery from the event, the service's key and
    another key; ``replays``: the authentic ``signed(event, key)`` goes first and must be
    acknowledged (the forgery reuses what it showed). ``mistake``: the receiver's mistake
    that accepts it."""

    name: str
    how: str
    make: Callable[[Event, SigningKey, SigningKey], Delivery]
    mistake: str
    replays: bool = False

    def deliver(self, event: Event, key: SigningKey, other: SigningKey | None = None) -> Delivery:
        """The forged delivery of ``event``; ``other`` (a fresh key unless given) is the
        key that is not the service's."""
        delivery = self.make(event, key, other or SigningKey.generate())
        return Delivery(delivery.body, delivery.headers, self.how)

    def first(self, event: Event, key: SigningKey) -> Delivery | None:
        """The authentic delivery sent before the forgery, or None."""
        return signed(event, key) if self.replays else None


def _altered(envelope: dict[str, Any]) -> dict[str, Any]:
    """The envelope with a value changed, as a tampering relay would: a payment's amounts,
    or else the event's type."""
    changed: dict[str, Any] = json.loads(json.dumps(envelope))
    data = changed.get("data")
    if isinstance(data, dict) and isinstance(data.get("sentAmount"), dict):
        for name in ("sentAmount", "receivedAmount"):
            data[name]["amount"] = int(data[name]["amount"]) * 10
    else:
        changed["type"] = f"{changed['type']}X"
    return changed


def _changed_after_signing(event: Event, key: SigningKey, other: SigningKey) -> Delivery:
    """Signed, then a value of the body changed."""
    return Delivery(_compact(_altered(event.envelope)), _headers(key.sign(event.body)))


def _over_reserialised(event: Event, key: SigningKey, other: SigningKey) -> Delivery:
    """The body sent pretty-printed; the signature over its compact re-serialisation."""
    sent = json.dumps(event.envelope, indent=2, ensure_ascii=False).encode()
    return Delivery(sent, _headers(key.sign(_compact(event.envelope))))


def _marked_test(event: Event, key: SigningKey, other: SigningKey) -> Delivery:
    """A payment event that also carries the TEST event's ``"test": true``, signed by
    another key: a receiver that skips verification for test events processes it."""
    return signed(Event({**event.envelope, "test": True}, event.schema), other)


def _replayed_signature(event: Event, key: SigningKey, other: SigningKey) -> Delivery:
    """After the authentic event was delivered: another event (a new id, other amounts)
    carrying the signature that verified over the first."""
    envelope = _altered(event.envelope)
    envelope["id"] = f"Webhook:{uuid.uuid5(uuid.NAMESPACE_URL, str(event.envelope['id']))}"
    return Delivery(_compact(envelope), _headers(key.sign(event.body)))


def _known_id_changed(event: Event, key: SigningKey, other: SigningKey) -> Delivery:
    """After the authentic event was delivered: the same event id with other amounts,
    signed by another key."""
    body = _compact(_altered(event.envelope))
    return Delivery(body, _headers(other.sign(body)))


def _over_sorted_keys(event: Event, key: SigningKey, other: SigningKey) -> Delivery:
    """The body sent as it is; the signature over its sorted-keys compact JSON (a
    "canonical" form some receivers try when the bytes fail)."""
    return Delivery(event.body, _headers(key.sign(_compact(event.envelope, sort_keys=True))))


def _whitespace_around(event: Event, key: SigningKey, other: SigningKey) -> Delivery:
    """The signature over the body (pretty-printed); the bytes sent have a space before it
    and a newline after it (JSON allows both): verifying the stripped body accepts it."""
    inner = json.dumps(event.envelope, indent=2, ensure_ascii=False).encode()
    return Delivery(b" " + inner + b"\n", _headers(key.sign(inner)))


FORGERIES: tuple[Forgery, ...] = (
    Forgery(
        "no-signature-header",
        f"no {SIGNATURE_HEADER} header",
        lambda event, key, other: Delivery(event.body, _headers(None)),
        "accepting a delivery without a signature",
    ),
    Forgery(
        "empty-signature",
        f"an empty {SIGNATURE_HEADER} header",
        lambda event, key, other: Delivery(event.body, _headers("")),
        "accepting an empty signature",
    ),
    Forgery(
        "malformed-base64",
        f"an {SIGNATURE_HEADER} that is not base64",
        lambda event, key, other: Delivery(event.body, _headers("not*base64!signature%%")),
        "accepting a signature that does not decode",
    ),
    Forgery(
        "signed-by-another-key",
        "a signature over the exact body by another key than the service's",
        lambda event, key, other: signed(event, other),
        "not checking the signature, or trusting any key",
    ),
    Forgery(
        "body-changed-after-signing",
        "a valid signature of the service's key over other bytes (the body was changed "
        "after signing)",
        _changed_after_signing,
        "checking only that the signature is well formed",
    ),
    Forgery(
        "signed-over-reserialised-body",
        "a signature of the service's key over a re-serialisation of the body (its compact "
        "JSON), not over the bytes sent (pretty-printed)",
        _over_reserialised,
        "verifying a compact re-serialisation of the parsed body instead of the bytes",
    ),
    Forgery(
        "marked-test-signed-by-another-key",
        'a payment event carrying "test": true, signed by another key than the service\'s',
        _marked_test,
        'skipping verification for an event that carries "test": true',
    ),
    Forgery(
        "signature-replayed-on-another-body",
        "the signature of an event delivered (and verified) before, on another event's body",
        _replayed_signature,
        "remembering signatures that verified once and accepting them on any body",
        replays=True,
    ),
    Forgery(
        "known-id-changed-body-another-key",
        "the id of an event delivered before, with a changed body signed by another key",
        _known_id_changed,
        "answering 2xx to an event id already seen before verifying the signature",
        replays=True,
    ),
    Forgery(
        "signed-over-sorted-keys",
        "a signature of the service's key over the body's sorted-keys compact JSON, not over "
        "the bytes sent",
        _over_sorted_keys,
        "verifying again over a sorted-keys re-serialisation when the bytes fail",
    ),
    Forgery(
        "signed-without-surrounding-whitespace",
        "a signature of the service's key over the body without the space before it and the "
        "newline after it, which the bytes sent carry",
        _whitespace_around,
        "stripping surrounding whitespace from the body before verifying",
    ),
)
