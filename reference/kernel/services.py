"""What a handler may use, opened once at start-up: settings, store, keys, the webhook queue
and its worker.

Handlers reach it as ``request.services`` (see ``reference.kernel.routing``); later routers
take what they need from here instead of opening anything of their own. The assembly opens
it (``reference.server.services``); the webhook queue and worker are the webhooks area's,
named here by what the other areas call on them, so the kernel imports no area.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from cryptography.hazmat.primitives.asymmetric import ec

from reference.kernel.db import Database
from reference.kernel.platforms import Credential, StoredCredential
from reference.kernel.settings import ServerSettings


class EventQueue(Protocol):
    """Queues webhook events for delivery (``reference.webhooks.events.Webhooks``)."""

    def enqueue_event(
        self,
        platform_id: str,
        event_type: str,
        data: dict[str, Any],
        timestamp: str | None = None,
    ) -> str | None:
        """Queue an event inside the caller's transaction; its id, or None when the platform
        has no webhook endpoint."""
        ...

    def send_test_event(self, platform_id: str) -> tuple[str, str]:
        """Queue the ``TEST`` event; its webhook id and the endpoint it goes to."""
        ...


class Worker(Protocol):
    """A background task that runs while the app is up (the webhook delivery worker)."""

    async def start(self) -> None:
        """Begin working."""
        ...

    async def stop(self) -> None:
        """Stop working; what was cut short runs after a restart."""
        ...


@dataclass(frozen=True, slots=True)
class PublishedCredentials:
    """The credentials the start-up line prints."""

    primary: Credential
    second: Credential
    production: Credential


@dataclass(frozen=True, slots=True)
class Services:
    """Everything a handler may use."""

    settings: ServerSettings
    db: Database
    webhook_key: ec.EllipticCurvePrivateKey
    webhooks: EventQueue
    delivery: Worker
    credentials: PublishedCredentials
    # Every API credential by token id. Credentials are written only by the seeding at
    # start-up, before the server starts, so authentication reads this copy: no database
    # lock, so no thread hop per request.
    api_tokens: Mapping[str, StoredCredential]
