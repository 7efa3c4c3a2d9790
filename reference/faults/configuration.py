"""Fault modes of the configuration area (reference/configuration/)."""

from __future__ import annotations

import re
from datetime import timedelta, timezone
from typing import Any

from reference.configuration import api, store, validation
from reference.configuration.store import PlatformConfig
from reference.faults.registry import fault
from reference.kernel.clock import parse_iso
from reference.kernel.platforms import all_platforms
from reference.kernel.services import Services
from reference.kernel.validation import Problems, at

# Time-zone offset of the timestamps rendered instead of UTC.
LOCAL_OFFSET_HOURS = 2
# Any three letters, in any case, ISO 4217 or not.
ANY_THREE_LETTERS = re.compile(r"[A-Za-z]{3}")
PROVIDER_FIELDS_KEY = "providerRequiredCustomerFields"


def shifted(text: str, hours: int) -> str:
    """The instant ``text`` written at a fixed UTC offset, e.g. ``...14:00:00.000+02:00``."""
    local = parse_iso(text).astimezone(timezone(timedelta(hours=hours)))
    offset = local.strftime("%z")
    return (
        local.strftime("%Y-%m-%dT%H:%M:%S.")
        + f"{local.microsecond // 1000:03d}{offset[:3]}:{offset[3:]}"
    )


@fault(
    "config-wrong-type",
    at=store.RENDERED,
    clause="§2 PlatformConfig: integer",
    part="resources",
    caught_by=("test_platform_config_follows_its_schema",),
)
def min_amount_as_string(body: dict[str, Any], *, config: PlatformConfig) -> dict[str, Any]:
    """config responses render supportedCurrencies[].minAmount as a string"""
    currencies = [
        {**entry, "minAmount": str(entry["minAmount"])} for entry in body["supportedCurrencies"]
    ]
    return {**body, "supportedCurrencies": currencies}


@fault(
    "config-missing-id",
    at=store.RENDERED,
    clause="§2 PlatformConfig: id",
    part="resources",
    caught_by=("test_platform_config_follows_its_schema",),
)
def omit_id(body: dict[str, Any], *, config: PlatformConfig) -> dict[str, Any]:
    """config responses omit id"""
    return {key: value for key, value in body.items() if key != "id"}


@fault(
    "config-local-timestamps",
    at=store.RENDERED,
    clause="§0 Conventions: timestamps are ISO 8601 UTC",
    part="resources",
    caught_by=("test_platform_config_timestamps_are_utc",),
)
def local_timestamps(body: dict[str, Any], *, config: PlatformConfig) -> dict[str, Any]:
    """config createdAt/updatedAt are rendered at +02:00, not UTC"""
    return {
        **body,
        "createdAt": shifted(body["createdAt"], LOCAL_OFFSET_HOURS),
        "updatedAt": shifted(body["updatedAt"], LOCAL_OFFSET_HOURS),
    }


@fault(
    "config-no-default-uma-domain",
    at=store.RENDERED,
    clause="§2 PlatformConfig: a default domain applies",
    part="resources",
    caught_by=("test_an_uma_domain_always_applies",),
)
def no_default_uma_domain(body: dict[str, Any], *, config: PlatformConfig) -> dict[str, Any]:
    """umaDomain is null while the platform has set none"""
    return {**body, "umaDomain": config.uma_domain}


@fault(
    "config-bad-provider-fields",
    at=store.RENDERED,
    clause="§2 PlatformConfig: values are UserInfoFieldName",
    part="resources",
    caught_by=("test_provider_required_customer_fields_are_user_info_field_names",),
)
def provider_fields_with_ssn(body: dict[str, Any], *, config: PlatformConfig) -> dict[str, Any]:
    """providerRequiredCustomerFields in responses also lists SSN"""
    currencies = [
        {**entry, PROVIDER_FIELDS_KEY: [*entry[PROVIDER_FIELDS_KEY], "SSN"]}  # not a field name
        for entry in body["supportedCurrencies"]
    ]
    return {**body, "supportedCurrencies": currencies}


@fault(
    "config-provider-fields-writable",
    at=(validation.PATCHED_CURRENCY, store.PROVIDER_FIELDS),
    clause="§2 PlatformConfig: read-only",
    part="endpoints",
    caught_by=("test_provider_required_customer_fields_are_read_only",),
)
def provider_fields_writable(value: Any, **context: Any) -> Any:
    """a providerRequiredCustomerFields list sent on PATCH is stored and returned"""
    if "problems" in context:  # config.patched_currency: keep the list sent
        return _keep_sent_provider_fields(value, **context)
    stored = context["entry"].get(PROVIDER_FIELDS_KEY)  # config.provider_fields
    return value if stored is None else list(stored)


def _keep_sent_provider_fields(
    entry: dict[str, Any], *, sent: dict[str, Any], path: str, problems: Problems
) -> dict[str, Any]:
    """The normalised entry with the providerRequiredCustomerFields sent, each a string."""
    provider = sent.get(PROVIDER_FIELDS_KEY)
    if provider is None:
        return entry
    field_path = at(path, PROVIDER_FIELDS_KEY)
    items = problems.array(field_path, provider)
    kept = None
    if items is not None:
        kept = [problems.string(at(field_path, index), item) for index, item in enumerate(items)]
    return {**entry, PROVIDER_FIELDS_KEY: kept}


@fault(
    "config-proxy-subdomain-writable",
    at=validation.PATCH_CHANGES,
    clause="§2 PlatformConfig: assigned by the service",
    part="endpoints",
    caught_by=("test_proxy_uma_subdomain_is_assigned_by_the_service",),
)
def proxy_subdomain_writable(
    changes: dict[str, Any], *, body: dict[str, Any], problems: Problems
) -> dict[str, Any]:
    """a proxyUmaSubdomain sent on PATCH is stored and returned"""
    proxy = body.get("proxyUmaSubdomain")
    if proxy is None:
        return changes
    return {**changes, "proxyUmaSubdomain": problems.string("proxyUmaSubdomain", proxy)}


@fault(
    "config-patch-ignored",
    at=api.CHANGES_APPLIED,
    clause="§4 Platform configuration",
    part="endpoints",
    caught_by=("test_valid_patches_are_accepted_echoed_and_kept",),
)
def ignore_patch(changes: dict[str, Any]) -> dict[str, Any]:
    """PATCH /config answers 200 but does not apply valid changes"""
    return {}


@fault(
    "config-patch-resets-unsent",
    at=validation.PATCH_CHANGES,
    clause="§4 Platform configuration: partial update",
    part="endpoints",
    caught_by=("test_patch_changes_only_the_fields_it_sends",),
)
def reset_unsent_fields(
    changes: dict[str, Any], *, body: dict[str, Any], problems: Problems
) -> dict[str, Any]:
    """PATCH /config resets unsent fields to their seeds, webhookEndpoint excepted (the
    suite's webhook sink needs it)"""
    seeded: dict[str, Any] = {
        "umaDomain": None,
        "supportedCurrencies": store.SEED_CURRENCIES,
        "feeConfigs": [],
        "cardTokenization2faConfig": None,
    }
    return {**seeded, **changes}


@fault(
    "config-fees-dropped",
    at=api.CHANGES_APPLIED,
    clause="§4 Platform configuration",
    part="limits",
    caught_by=("test_fee_configuration_for_usd_is_accepted",),
)
def drop_fee_configs(changes: dict[str, Any]) -> dict[str, Any]:
    """PATCH /config answers 200 to a valid feeConfigs but keeps the previous one"""
    return {key: value for key, value in changes.items() if key != "feeConfigs"}


@fault(
    "config-accept-http-webhook",
    at=validation.HTTP_WEBHOOK_ALLOWED,
    clause="§2 PlatformConfig: HTTPS URL",
    part="endpoints",
    caught_by=("test_webhook_endpoint_must_be_https",),
)
def allow_http_webhook(allowed: bool, *, host: str) -> bool:
    """accepts an http:// webhookEndpoint on a non-loopback host"""
    return True


@fault(
    "config-fee-any-currency",
    at=validation.FEE_SOURCE_ACCEPTED,
    clause="§2 PlatformConfig: USD source currency only",
    part="limits",
    caught_by=("test_fee_configuration_for_another_source_currency_is_rejected",),
)
def accept_any_fee_source(accepted: bool, *, source: str) -> bool:
    """accepts a fee config whose sourceCurrency is not USD"""
    return True


@fault(
    "config-accept-lowercase-currency",
    at=validation.CURRENCY_CODE,
    clause="§2 PlatformConfig: ISO 4217",
    part="resources",
    caught_by=("test_currency_codes_must_be_iso_4217",),
)
def accept_any_three_letters(code: str | None, *, sent: str) -> str | None:
    """accepts any three letters in any case as currencyCode, stored upper-cased"""
    return sent.upper() if ANY_THREE_LETTERS.fullmatch(sent) else code


@fault(
    "config-amounts-optional",
    at=validation.CURRENCY_AMOUNTS_REQUIRED,
    clause="§2 PlatformConfig: required",
    part="resources",
    caught_by=("test_currency_entry_rules",),
)
def amounts_optional(required: bool) -> bool:
    """accepts a supportedCurrencies entry without minAmount/maxAmount, stored as null"""
    return False


@fault(
    "config-shared-across-platforms",
    at=api.PATCH_TARGETS,
    clause="§1 What the service does: per-platform configuration",
    part="endpoints",
    caught_by=("test_each_platform_sees_only_its_own_configuration",),
)
def patch_every_platform(targets: list[str], *, services: Services) -> list[str]:
    """PATCH /config by one platform also changes the other platform's config"""
    return [platform.id for platform in all_platforms(services.db)]
