"""The assembled sandbox: settings, store, keys, outbox and worker, opened once at start-up.

Handlers reach it as ``request.services`` (see ``reference.server.routing``); later routers take
what they need from here instead of opening anything of their own.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType

from cryptography.hazmat.primitives.asymmetric import ec

from reference.accounts.internal_accounts import seed_platform_account
from reference.configuration.store import seed_config
from reference.server.db import Database
from reference.server.platforms import (
    PRIMARY,
    PRODUCTION,
    SANDBOX,
    SECOND,
    Credential,
    StoredCredential,
    load_credentials,
    seed_credentials,
    seed_platforms,
)
from reference.server.schema import STATEMENTS
from reference.server.settings import ServerSettings
from reference.webhooks.delivery import DeliveryWorker
from reference.webhooks.events import Webhooks
from reference.webhooks.outbox import Outbox
from reference.webhooks.signing import load_or_create_webhook_key


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
    webhooks: Webhooks
    delivery: DeliveryWorker
    credentials: PublishedCredentials
    # Every API credential by token id. Credentials are written only by the seeding below,
    # before the server starts, so authentication reads this copy: no database lock, so no
    # thread hop per request.
    api_tokens: Mapping[str, StoredCredential]


def open_services(settings: ServerSettings) -> Services:
    """Open (or create) the database, seed what is missing, and wire the services.

    Seeding is idempotent: a restart with the same database keeps platforms, credentials,
    configuration, the platform's own account, the signing key and undelivered events.
    """
    db = Database(settings.db_path)
    db.create_schema(STATEMENTS)
    platforms = seed_platforms(db)
    fixed = None
    if settings.client_id is not None and settings.client_secret is not None:
        fixed = Credential(settings.client_id, settings.client_secret)
    credentials = PublishedCredentials(
        primary=seed_credentials(db, platforms[PRIMARY], SANDBOX, fixed),
        second=seed_credentials(db, platforms[SECOND], SANDBOX),
        production=seed_credentials(db, platforms[PRIMARY], PRODUCTION),
    )
    seed_credentials(db, platforms[SECOND], PRODUCTION)
    for platform in platforms.values():
        seed_config(db, platform)
        seed_platform_account(db, platform.id)
    key = load_or_create_webhook_key(db)
    outbox = Outbox(db)
    return Services(
        settings=settings,
        db=db,
        webhook_key=key,
        webhooks=Webhooks(db, outbox, settings),
        delivery=DeliveryWorker(outbox, key, settings),
        credentials=credentials,
        api_tokens=MappingProxyType(load_credentials(db)),
    )
