"""The shipped webhook test vectors (``conformance vectors --out DIR``): every delivery the
receiver check sends, as data a platform's own tests can replay in any language.

Each vector is the exact body bytes, the headers, the verdict a receiver must reach
(``accept`` or ``reject``) and why, and the deliveries to make first on the same receiver
(``before``: a repeat, an out-of-order pair, the forgeries that reuse an authentic event).
The events are minted from a seed and a stopped clock, and signed (deterministic ECDSA,
RFC 6979) by a fixed test key defined here, with a fixed "other" key for the forgeries that
need one: the same kit writes the same bytes every time, so the set can be checked in.
These keys are published test keys: never trust them outside a test.
"""

from __future__ import annotations

import base64
import hashlib
import json
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from cryptography.hazmat.primitives.asymmetric import ec

from conformance.contract import clauses
from conformance.webhooks.delivering.deliveries import FORGERIES, Delivery, signed
from conformance.webhooks.delivering.event_bodies import (
    EVENT_TYPES,
    Minter,
    event_of_type,
    follow_up,
    make_test_event,
)
from conformance.webhooks.delivering.signing_key import SigningKey

__all__ = ["VECTOR_FORMAT", "Vector", "build_vectors", "other_key", "vector_key", "write_vectors"]

VECTOR_FORMAT = "gpsi-conformance-webhook-vectors/1"
# The clock the vectors' events are stamped by (the interface's version date, at noon).
_MOMENT = datetime(2025, 10, 13, 12, 0, tzinfo=UTC)
_FORGED_TYPE = "OUTGOING_PAYMENT.COMPLETED"


def _fixed_key(label: str) -> SigningKey:
    """A P-256 key whose scalar is SHA-256 of ``label`` (below the curve's order)."""
    scalar = int.from_bytes(hashlib.sha256(label.encode()).digest(), "big")
    return SigningKey(ec.derive_private_key(scalar, ec.SECP256R1()))


def vector_key() -> SigningKey:
    """The fixed test key the vectors are signed with, as the service signs."""
    return _fixed_key("gpsi-conformance webhook vectors: the service's test key")


def other_key() -> SigningKey:
    """The fixed key that is not the service's (forgeries signed by another key)."""
    return _fixed_key("gpsi-conformance webhook vectors: another key")


@dataclass(frozen=True, slots=True)
class Vector:
    """One delivery and the verdict a receiver must reach on it."""

    name: str
    expect: str  # "accept" or "reject"
    why: str
    clause: str
    delivery: Delivery
    before: tuple[Delivery, ...] = ()
    mistake: str | None = None  # the receiver mistake a reject vector catches

    def as_json(self, body_file: str) -> dict[str, Any]:
        """The vector as ``vectors.json`` lists it."""
        return {
            "name": self.name,
            "expect": self.expect,
            "why": self.why,
            "clause": self.clause,
            "mistake": self.mistake,
            "before": [_delivery_json(one) for one in self.before],
            "body_file": body_file,
            **_delivery_json(self.delivery),
        }


def _delivery_json(delivery: Delivery) -> dict[str, Any]:
    return {
        "body_base64": base64.b64encode(delivery.body).decode("ascii"),
        "headers": dict(delivery.headers),
    }


def _minter(name: str) -> Minter:
    return Minter(seed=f"{VECTOR_FORMAT}/{name}", moment=_MOMENT)


def _accepted(key: SigningKey) -> list[Vector]:
    """The authentic deliveries: the TEST event, each named type, a repeat, two
    out-of-order pairs."""
    authentic = "signed by the service's key over the exact body"
    found = [
        Vector(
            "accept-test-event",
            "accept",
            f"the TEST event, {authentic}",
            clauses.EVENTS,
            signed(make_test_event(minter=_minter("test-event")), key),
        )
    ]
    for event_type in EVENT_TYPES:
        name = f"accept-{event_type.name.lower().replace('.', '-').replace('_', '-')}"
        why = f"a {event_type.name} event, {authentic}"
        if not event_type.payload_shown:
            why += " (its payload is not shown in §6: the body is the kit's choice)"
        event = event_of_type(event_type.name, minter=_minter(name))
        found.append(Vector(name, "accept", why, clauses.EVENTS, signed(event, key)))
    repeat = signed(event_of_type(_FORGED_TYPE, minter=_minter("repeat")), key)
    found.append(
        Vector(
            "accept-same-event-twice",
            "accept",
            "the second delivery of the same event, same bytes: events are processed "
            "idempotently and each delivery is acknowledged",
            clauses.EVENTS,
            repeat,
            (repeat,),
        )
    )
    for label, earlier, later, changes in (
        ("payment", "OUTGOING_PAYMENT.PROCESSING", "OUTGOING_PAYMENT.COMPLETED",
         {"status": "COMPLETED"}),
        ("refund", "OUTGOING_PAYMENT.REFUND_PENDING", "OUTGOING_PAYMENT.REFUND_COMPLETED",
         {"refund": {"status": "COMPLETED"}}),
    ):  # fmt: skip
        minter = _minter(f"out-of-order-{label}")
        first = event_of_type(earlier, _MOMENT - timedelta(seconds=30), minter=minter)
        second = follow_up(first, later, _MOMENT, minter, **changes)
        found.append(
            Vector(
                f"accept-{label}-out-of-order",
                "accept",
                f"{earlier} delivered after {later} about the same record (delivery "
                "ordering: not shown)",
                clauses.EVENTS,
                signed(first, key),
                (signed(second, key),),
            )
        )
    return found


def _rejected(key: SigningKey, other: SigningKey) -> list[Vector]:
    """Each forgery of the receiver check, after the authentic event where it reuses one."""
    found = []
    for forgery in FORGERIES:
        event = event_of_type(_FORGED_TYPE, minter=_minter(forgery.name))
        first = forgery.first(event, key)
        found.append(
            Vector(
                f"reject-{forgery.name}",
                "reject",
                f"{forgery.how}: the signature does not verify over the exact body",
                clauses.AUTHENTICATION,
                forgery.deliver(event, key, other),
                () if first is None else (first,),
                forgery.mistake,
            )
        )
    return found


def build_vectors() -> list[Vector]:
    """Every vector, in a fixed order: the accepted deliveries, then the rejected."""
    key = vector_key()
    return [*_accepted(key), *_rejected(key, other_key())]


def write_vectors(out: Path) -> list[Vector]:
    """Write ``vectors.json``, ``public-key.pem`` and each body under ``bodies/`` into
    ``out`` (made if missing; files of an earlier set are overwritten); the vectors."""
    vectors = build_vectors()
    bodies = out / "bodies"
    bodies.mkdir(parents=True, exist_ok=True)
    public_pem = vector_key().public_pem()
    listed = []
    for vector in vectors:
        body_file = f"bodies/{vector.name}.json"
        (out / body_file).write_bytes(vector.delivery.body)
        listed.append(vector.as_json(body_file))
    document = {
        "format": VECTOR_FORMAT,
        "verify": f"{clauses.AUTHENTICATION}: decode the base64 X-Service-Signature, compute "
        "SHA-256 of the exact body bytes (body_base64 decoded, or body_file), verify the signature "
        "(ECDSA P-256, DER) with the public key; reject on failure. Make the deliveries of "
        "'before' first, on the same receiver, each to be accepted.",
        "signature_header": "X-Service-Signature",
        "public_key_file": "public-key.pem",
        "public_key_pem": public_pem,
        "vectors": listed,
    }
    (out / "public-key.pem").write_text(public_pem, encoding="ascii")
    text = json.dumps(document, indent=2, ensure_ascii=False) + "\n"
    (out / "vectors.json").write_text(text, encoding="utf-8")
    return vectors
