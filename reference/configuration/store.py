"""Stored PlatformConfig rows (§2 PlatformConfig): seeding, reading, writing, rendering."""

from __future__ import annotations

import secrets
import uuid
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from reference.configuration.user_info import provider_required_customer_fields
from reference.kernel.clock import iso, later_than, utc_now
from reference.kernel.db import Database, from_json, to_json
from reference.kernel.platforms import Platform
from reference.kernel.seams import seam
from reference.kernel.settings import ServerSettings

SCHEMA = (
    """CREATE TABLE IF NOT EXISTS platform_configs (
        platform_id TEXT PRIMARY KEY REFERENCES platforms(id),
        id TEXT NOT NULL UNIQUE,
        default_uma_domain TEXT NOT NULL,
        uma_domain TEXT,
        proxy_uma_subdomain TEXT NOT NULL,
        webhook_endpoint TEXT,
        supported_currencies TEXT NOT NULL,
        fee_configs TEXT NOT NULL,
        card_tokenization_2fa_config TEXT,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL
    )""",
)

RENDERED = seam(
    "config.rendered",
    "the PlatformConfig body about to be answered (context: config, the stored PlatformConfig)",
)
PROVIDER_FIELDS = seam(
    "config.provider_fields",
    "the providerRequiredCustomerFields rendered for one supportedCurrencies entry: those its"
    " currency's provider requires (context: entry, the stored entry)",
)

# Both platforms start with USD and EUR so quotes work before any PATCH.
SEED_CURRENCIES: list[dict[str, Any]] = [
    {
        "currencyCode": "USD",
        "minAmount": 1,
        "maxAmount": 100_000_000,
        "requiredCounterpartyFields": [
            {"name": "FULL_NAME", "mandatory": True},
            {"name": "BIRTH_DATE", "mandatory": False},
        ],
    },
    {
        "currencyCode": "EUR",
        "minAmount": 1,
        "maxAmount": 100_000_000,
        "requiredCounterpartyFields": [
            {"name": "FULL_NAME", "mandatory": True},
            {"name": "NATIONALITY", "mandatory": False},
        ],
    },
]


def _nullable_json(value: Any) -> str | None:
    return None if value is None else to_json(value)


def _identity(value: Any) -> Any:
    return value


# API field name -> (column, how the validated value is stored). Validation decides what
# reaches ``apply_changes``: the writable fields only, never the service-assigned
# proxyUmaSubdomain, whose column is listed with the others all the same.
_COLUMNS: Mapping[str, tuple[str, Callable[[Any], Any]]] = {
    "umaDomain": ("uma_domain", _identity),
    "webhookEndpoint": ("webhook_endpoint", _identity),
    "supportedCurrencies": ("supported_currencies", to_json),
    "feeConfigs": ("fee_configs", to_json),
    "cardTokenization2faConfig": ("card_tokenization_2fa_config", _nullable_json),
    "proxyUmaSubdomain": ("proxy_uma_subdomain", _identity),
}


@dataclass(frozen=True, slots=True)
class PlatformConfig:
    """One platform's configuration as stored."""

    id: str
    uma_domain: str | None  # as the platform set it; None when it set none
    default_uma_domain: str
    proxy_uma_subdomain: str
    webhook_endpoint: str | None
    supported_currencies: list[dict[str, Any]]
    fee_configs: list[dict[str, Any]]
    card_tokenization_2fa_config: dict[str, str] | None
    created_at: str
    updated_at: str

    @property
    def effective_uma_domain(self) -> str:
        """The platform's own domain, else the default: "a default domain applies when none
        is set" (§2 PlatformConfig)."""
        return self.uma_domain or self.default_uma_domain


def seed_config(db: Database, platform: Platform) -> None:
    """Give ``platform`` its initial configuration unless it already has one."""
    now = iso(utc_now())
    db.execute(
        """INSERT OR IGNORE INTO platform_configs
           (platform_id, id, default_uma_domain, proxy_uma_subdomain, supported_currencies,
            fee_configs, created_at, updated_at)
           VALUES (?, ?, ?, ?, ?, '[]', ?, ?)""",
        (
            platform.id,
            f"PlatformConfig:{uuid.uuid4()}",
            f"{platform.role}.sandbox.uma.example",
            f"{platform.role}-{secrets.token_hex(4)}",
            to_json(SEED_CURRENCIES),
            now,
            now,
        ),
    )


def load_config(db: Database, platform_id: str) -> PlatformConfig:
    """The configuration of ``platform_id`` (every seeded platform has one)."""
    row = db.fetchone("SELECT * FROM platform_configs WHERE platform_id = ?", (platform_id,))
    if row is None:
        raise LookupError(f"platform {platform_id} has no configuration")
    return PlatformConfig(
        id=row["id"],
        uma_domain=row["uma_domain"],
        default_uma_domain=row["default_uma_domain"],
        proxy_uma_subdomain=row["proxy_uma_subdomain"],
        webhook_endpoint=row["webhook_endpoint"],
        supported_currencies=from_json(row["supported_currencies"]),
        fee_configs=from_json(row["fee_configs"]),
        card_tokenization_2fa_config=from_json(row["card_tokenization_2fa_config"]),
        created_at=row["created_at"],
        updated_at=row["updated_at"],
    )


def apply_changes(db: Database, platform_ids: Iterable[str], changes: Mapping[str, Any]) -> None:
    """Write validated ``changes`` (API field name -> value) to each platform's config and
    move its ``updatedAt`` forward."""
    fields = [name for name in _COLUMNS if name in changes]
    if not fields:
        return
    assignments = ", ".join(f"{_COLUMNS[name][0]} = ?" for name in fields)
    values = [_COLUMNS[name][1](changes[name]) for name in fields]
    with db.transaction():
        for platform_id in platform_ids:
            updated_at = later_than(load_config(db, platform_id).updated_at)
            db.execute(
                f"UPDATE platform_configs SET {assignments}, updated_at = ? WHERE platform_id = ?",
                (*values, updated_at, platform_id),
            )


def render(config: PlatformConfig, settings: ServerSettings) -> dict[str, Any]:
    """The PlatformConfig response body."""
    currencies = [_render_currency(entry, settings) for entry in config.supported_currencies]
    body: dict[str, Any] = {
        "id": config.id,
        "umaDomain": config.effective_uma_domain,
        "proxyUmaSubdomain": config.proxy_uma_subdomain,
        "webhookEndpoint": config.webhook_endpoint,
        "supportedCurrencies": currencies,
        "feeConfigs": config.fee_configs,
        "cardTokenization2faConfig": config.card_tokenization_2fa_config,
        "createdAt": config.created_at,
        "updatedAt": config.updated_at,
    }
    # §2 PlatformConfig allows no null: a field not set (no webhookEndpoint yet) is omitted
    body = {key: value for key, value in body.items() if value is not None}
    return settings.seams.apply(RENDERED, body, config=config)


def _render_currency(entry: dict[str, Any], settings: ServerSettings) -> dict[str, Any]:
    """One supportedCurrencies entry with its computed providerRequiredCustomerFields."""
    provider_fields = settings.seams.apply(
        PROVIDER_FIELDS, provider_required_customer_fields(entry["currencyCode"]), entry=entry
    )
    return {**entry, "providerRequiredCustomerFields": provider_fields}
