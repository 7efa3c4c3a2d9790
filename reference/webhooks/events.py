"""Webhook events (§6 Events): building envelopes and queueing them for delivery.

Events go to the platform's configured ``webhookEndpoint`` as it is when the event is
queued; without an endpoint there is no one to tell, and nothing is queued.
"""

from __future__ import annotations

import json
import uuid
from typing import Any

from reference.configuration.store import load_config
from reference.kernel.clock import iso, utc_now
from reference.kernel.db import Database
from reference.kernel.errors import ApiError
from reference.kernel.seams import seam
from reference.kernel.settings import ServerSettings
from reference.webhooks.outbox import Outbox

TEST_EVENT_TYPE = "TEST"

TEST_EVENT = seam(
    "webhooks.test_event",
    "the TEST event payload about to be queued: {test, timestamp, webhookId, type}",
)
TEST_EVENT_QUEUED = seam(
    "webhooks.test_event_queued",
    "whether the TEST event is queued for delivery to the endpoint: always"
    " (context: platform_id, event)",
)
EVENT_DATA = seam(
    "webhooks.event_data",
    "the data of an event other than TEST about to be signed and queued (context: event_type)",
)
ENVELOPES = seam(
    "webhooks.envelopes",
    "the envelopes one change queues for the platform's endpoint: its one event"
    " (context: platform_id, db)",
)
EVENT_QUEUED = seam(
    "webhooks.event_queued",
    "whether an event other than TEST is queued for delivery to the endpoint: always"
    " (context: platform_id, event_type)",
)


def new_webhook_id() -> str:
    """A fresh ``Webhook:<uuid>`` identifier."""
    return f"Webhook:{uuid.uuid4()}"


def encode(payload: dict[str, Any]) -> bytes:
    """The exact bytes delivered and signed: compact UTF-8 JSON."""
    return json.dumps(payload, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


class Webhooks:
    """Queues events for one sandbox; handlers reach it as ``services.webhooks``."""

    def __init__(self, db: Database, outbox: Outbox, settings: ServerSettings) -> None:
        self._db = db
        self._outbox = outbox
        self._settings = settings

    def enqueue_event(
        self,
        platform_id: str,
        event_type: str,
        data: dict[str, Any],
        timestamp: str | None = None,
    ) -> str | None:
        """Queue ``{id, type, timestamp, data}`` for the platform; return the event id, or
        None when the platform has no webhook endpoint.

        Call it inside the transaction that makes the change, so the event exists exactly
        when the change does. ``timestamp`` (default: now) lets a caller that reports two
        steps of one change give each its own instant.
        """
        endpoint = load_config(self._db, platform_id).webhook_endpoint
        if endpoint is None:
            return None
        event_id = new_webhook_id()
        stamp = timestamp if timestamp is not None else iso(utc_now())
        data = self._settings.seams.apply(EVENT_DATA, data, event_type=event_type)
        envelope = {"id": event_id, "type": event_type, "timestamp": stamp, "data": data}
        queued = self._settings.seams.apply(
            EVENT_QUEUED, True, platform_id=platform_id, event_type=event_type
        )
        if not queued:
            return event_id
        envelopes = self._settings.seams.apply(
            ENVELOPES, [envelope], platform_id=platform_id, db=self._db
        )
        for index, queued_envelope in enumerate(envelopes):
            self._outbox.enqueue(
                event_id=event_id if index == 0 else new_webhook_id(),  # the outbox's own key
                platform_id=platform_id,
                event_type=str(queued_envelope.get("type", event_type)),
                target_url=endpoint,
                body=encode(queued_envelope),
            )
        return event_id

    def send_test_event(self, platform_id: str) -> tuple[str, str]:
        """Queue the ``TEST`` event; return its webhook id and the endpoint it goes to.

        Raises 409 ``WEBHOOK_ENDPOINT_NOT_CONFIGURED`` when there is nowhere to send it.
        """
        endpoint = load_config(self._db, platform_id).webhook_endpoint
        if endpoint is None:
            raise ApiError(
                409,
                "WEBHOOK_ENDPOINT_NOT_CONFIGURED",
                "set webhookEndpoint with PATCH /config before sending a test event",
            )
        webhook_id = new_webhook_id()
        event: dict[str, Any] = {
            "test": True,
            "timestamp": iso(utc_now()),
            "webhookId": webhook_id,
            "type": TEST_EVENT_TYPE,
        }
        seams = self._settings.seams
        event = seams.apply(TEST_EVENT, event)
        if seams.apply(TEST_EVENT_QUEUED, True, platform_id=platform_id, event=event):
            self._outbox.enqueue(
                event_id=webhook_id,
                platform_id=platform_id,
                event_type=TEST_EVENT_TYPE,
                target_url=endpoint,
                body=encode(event),
            )
        return webhook_id, endpoint
