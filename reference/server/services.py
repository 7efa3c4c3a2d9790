"""Opening the sandbox's services at start-up: the database and its tables, the seeded
platforms, credentials, configuration and platform accounts, the webhook key, queue and
worker (``reference.kernel.services.Services``)."""

from __future__ import annotations

from types import MappingProxyType

from reference.accounts.internal_accounts import seed_platform_account
from reference.configuration.store import seed_config
from reference.kernel.db import Database
from reference.kernel.platforms import (
    PRIMARY,
    PRODUCTION,
    SANDBOX,
    SECOND,
    Credential,
    load_credentials,
    seed_credentials,
    seed_platforms,
)
from reference.kernel.services import PublishedCredentials, Services
from reference.kernel.settings import ServerSettings
from reference.server.schema import STATEMENTS
from reference.webhooks.delivery import DeliveryWorker
from reference.webhooks.events import Webhooks
from reference.webhooks.outbox import Outbox, RetrySchedule
from reference.webhooks.signing import load_or_create_webhook_key


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
    outbox = Outbox(db, RetrySchedule(settings.webhook_retry_scale))
    return Services(
        settings=settings,
        db=db,
        webhook_key=key,
        webhooks=Webhooks(db, outbox, settings),
        delivery=DeliveryWorker(outbox, key, settings),
        credentials=credentials,
        api_tokens=MappingProxyType(load_credentials(db)),
    )
