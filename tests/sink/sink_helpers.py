"""Builders shared by the sink's tests: keys, signatures, envelopes, deliveries."""

from __future__ import annotations

import base64
import hashlib
import json
import uuid
from datetime import UTC, datetime, timedelta
from typing import Any

from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec, utils

from conformance.webhooks.sink import Delivery

BASE_TIME = datetime(2026, 1, 15, 12, 0, 0, tzinfo=UTC)


def sign_ec(key: ec.EllipticCurvePrivateKey, body: bytes) -> str:
    """The header value a service would send: base64 DER ECDSA over SHA-256 of the body."""
    digest = hashlib.sha256(body).digest()
    signature = key.sign(digest, ec.ECDSA(utils.Prehashed(hashes.SHA256())))
    return base64.b64encode(signature).decode()


def stamp(seconds: float) -> str:
    """An ISO 8601 UTC timestamp ``seconds`` after a fixed base time."""
    return (BASE_TIME + timedelta(seconds=seconds)).isoformat().replace("+00:00", "Z")


def envelope(
    event_type: str,
    resource_id: str | None = None,
    *,
    at: float = 0.0,
    event_id: str | None = None,
    data: dict[str, Any] | None = None,
) -> bytes:
    """A §6 envelope ``{id, type, timestamp, data}`` as bytes."""
    payload = dict(data or {})
    if resource_id is not None:
        payload["id"] = resource_id
    body = {
        "id": event_id or f"Webhook:{uuid.uuid4()}",
        "type": event_type,
        "timestamp": stamp(at),
        "data": payload,
    }
    return json.dumps(body).encode()


def delivery(seq: int, body: bytes, **headers: str) -> Delivery:
    """A delivery built directly (no HTTP), for ordering and store tests."""
    return Delivery(
        seq=seq,
        received_at=1_700_000_000.0 + seq,
        method="POST",
        path="/hooks",
        headers={k.replace("_", "-").lower(): v for k, v in headers.items()},
        body=body,
    )


def transaction_id() -> str:
    return f"Transaction:{uuid.uuid4()}"
