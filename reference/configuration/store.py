"""Stored PlatformConfig rows (§2 PlatformConfig): seeding, reading, writing, rendering."""

from __future__ import annotations

import secrets
import uuid
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from reference.customers.user_info import provider_required_customer_fields
from reference.server.clock import iso, later_than, shifted, utc_now
from reference.server.db import Database, from_json, to_json
from reference.server.platforms import Platform
from reference.server.settings import ServerSettings

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

# Both platforms start with USD and EUR so quotes work before any PATCH.
_SEED_CURRENCIES: list[dict[str, Any]] = [
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
# reaches ``apply_changes``; the read-only proxyUmaSubdomain is listed only so the
# `config-proxy-subdomain-writable` fault can store it.
_COLUMNS: Mapping[str, tuple[str, Callable[[Any], Any]]] = {
    "umaDomain": ("uma_domain", _identity),
    "webhookEndpoint": ("webhook_endpoint", _identity),
    "supportedCurrencies": ("supported_currencies", to_json),
    "feeConfigs": ("fee_configs", to_json),
    "cardTokenization2faConfig": ("card_tokenization_2fa_config", _nullable_json),
    "proxyUmaSubdomain": ("proxy_uma_subdomain", _identity),
}
WRITABLE_FIELDS = (
    "umaDomain",
    "webhookEndpoint",
    "supportedCurrencies",
    "feeConfigs",
    "cardTokenization2faConfig",
)

# Time-zone offset of the timestamps the `config-local-timestamps` fault renders.
_LOCAL_OFFSET_HOURS = 2


def seeded_values() -> dict[str, Any]:
    """The writable fields as ``seed_config`` leaves them, webhookEndpoint excepted.

    Only the ``config-patch-resets-unsent`` fault uses it; the webhook endpoint is left out
    so the suite's webhook sink keeps receiving while that fault is on.
    """
    return {
        "umaDomain": None,
        "supportedCurrencies": _SEED_CURRENCIES,
        "feeConfigs": [],
        "cardTokenization2faConfig": None,
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
            to_json(_SEED_CURRENCIES),
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
    """The PlatformConfig response body; the rendering fault modes live here."""
    currencies = [_render_currency(entry, settings) for entry in config.supported_currencies]
    uma_domain: str | None = config.effective_uma_domain
    if settings.has_fault("config-no-default-uma-domain"):
        uma_domain = config.uma_domain
    created_at, updated_at = config.created_at, config.updated_at
    if settings.has_fault("config-local-timestamps"):
        created_at = shifted(created_at, _LOCAL_OFFSET_HOURS)
        updated_at = shifted(updated_at, _LOCAL_OFFSET_HOURS)
    body: dict[str, Any] = {
        "id": config.id,
        "umaDomain": uma_domain,
        "proxyUmaSubdomain": config.proxy_uma_subdomain,
        "webhookEndpoint": config.webhook_endpoint,
        "supportedCurrencies": currencies,
        "feeConfigs": config.fee_configs,
        "cardTokenization2faConfig": config.card_tokenization_2fa_config,
        "createdAt": created_at,
        "updatedAt": updated_at,
    }
    if settings.has_fault("config-missing-id"):
        del body["id"]
    return body


def _render_currency(entry: dict[str, Any], settings: ServerSettings) -> dict[str, Any]:
    """One supportedCurrencies entry with its computed providerRequiredCustomerFields."""
    # A stored list exists only under the `config-provider-fields-writable` fault.
    stored = entry.get("providerRequiredCustomerFields")
    if stored is None:
        provider_fields = provider_required_customer_fields(entry["currencyCode"])
    else:
        provider_fields = list(stored)
    if settings.has_fault("config-bad-provider-fields"):
        provider_fields.append("SSN")  # not a UserInfoFieldName
    rendered = {**entry, "providerRequiredCustomerFields": provider_fields}
    if settings.has_fault("config-wrong-type"):
        rendered["minAmount"] = str(rendered["minAmount"])
    return rendered
