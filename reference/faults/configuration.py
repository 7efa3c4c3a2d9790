"""Fault modes of the configuration area (reference/configuration/)."""

from __future__ import annotations

from reference.faults.legacy import legacy

legacy(
    "config-wrong-type",
    breaks="config responses render supportedCurrencies[].minAmount as a string",
    clause="§2 PlatformConfig: integer",
    part="resources",
    caught_by=("test_platform_config_follows_its_schema",),
)
legacy(
    "config-missing-id",
    breaks="config responses omit id",
    clause="§2 PlatformConfig: id",
    part="resources",
    caught_by=("test_platform_config_follows_its_schema",),
)
legacy(
    "config-local-timestamps",
    breaks="config createdAt/updatedAt are rendered at +02:00, not UTC",
    clause="§0 Conventions: timestamps are ISO 8601 UTC",
    part="resources",
    caught_by=("test_platform_config_timestamps_are_utc",),
)
legacy(
    "config-no-default-uma-domain",
    breaks="umaDomain is null while the platform has set none",
    clause="§2 PlatformConfig: a default domain applies",
    part="resources",
    caught_by=("test_an_uma_domain_always_applies",),
)
legacy(
    "config-bad-provider-fields",
    breaks="providerRequiredCustomerFields in responses also lists SSN",
    clause="§2 PlatformConfig: values are UserInfoFieldName",
    part="resources",
    caught_by=("test_provider_required_customer_fields_are_user_info_field_names",),
)
legacy(
    "config-provider-fields-writable",
    breaks="a providerRequiredCustomerFields list sent on PATCH is stored and returned",
    clause="§2 PlatformConfig: read-only",
    part="endpoints",
    caught_by=("test_provider_required_customer_fields_are_read_only",),
)
legacy(
    "config-proxy-subdomain-writable",
    breaks="a proxyUmaSubdomain sent on PATCH is stored and returned",
    clause="§2 PlatformConfig: assigned by the service",
    part="endpoints",
    caught_by=("test_proxy_uma_subdomain_is_assigned_by_the_service",),
)
legacy(
    "config-patch-ignored",
    breaks="PATCH /config answers 200 but does not apply valid changes",
    clause="§4 Platform configuration",
    part="endpoints",
    caught_by=("test_valid_patches_are_accepted_echoed_and_kept",),
)
legacy(
    "config-patch-resets-unsent",
    breaks="PATCH /config resets unsent fields to their seeds, webhookEndpoint excepted (the suite's webhook sink needs it)",
    clause="§4 Platform configuration: partial update",
    part="endpoints",
    caught_by=("test_patch_changes_only_the_fields_it_sends",),
)
legacy(
    "config-fees-dropped",
    breaks="PATCH /config answers 200 to a valid feeConfigs but keeps the previous one",
    clause="§4 Platform configuration",
    part="limits",
    caught_by=("test_fee_configuration_for_usd_is_accepted",),
)
legacy(
    "config-accept-http-webhook",
    breaks="accepts an http:// webhookEndpoint on a non-loopback host",
    clause="§2 PlatformConfig: HTTPS URL",
    part="errors",
    caught_by=("test_webhook_endpoint_must_be_https",),
)
legacy(
    "config-fee-any-currency",
    breaks="accepts a fee config whose sourceCurrency is not USD",
    clause="§2 PlatformConfig: USD source currency only",
    part="limits",
    caught_by=("test_fee_configuration_for_another_source_currency_is_rejected",),
)
legacy(
    "config-accept-lowercase-currency",
    breaks="accepts any three letters in any case as currencyCode, stored upper-cased",
    clause="§2 PlatformConfig: ISO 4217",
    part="errors",
    caught_by=("test_currency_codes_must_be_iso_4217",),
)
legacy(
    "config-amounts-optional",
    breaks="accepts a supportedCurrencies entry without minAmount/maxAmount, stored as null",
    clause="§2 PlatformConfig: required",
    part="errors",
    caught_by=("test_currency_entry_rules",),
)
legacy(
    "config-shared-across-platforms",
    breaks="PATCH /config by one platform also changes the other platform's config",
    clause="§1 What the service does: per-platform configuration",
    part="endpoints",
    caught_by=("test_each_platform_sees_only_its_own_configuration",),
)
