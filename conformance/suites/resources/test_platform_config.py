"""§2 Resources and their fields — PlatformConfig, as GET /config returns it.

The rules of a ``supportedCurrencies`` entry are also checked from the other side: PATCH
/config refuses an entry that breaks them (on ``scratch_platform``, the second platform
when the profile has one).
"""

from __future__ import annotations

import re

import pytest

from conformance.configuration.bodies import USER_INFO_FIELD_NAMES, known_currency_codes
from conformance.contract import clauses
from conformance.contract.failures import check
from conformance.exchange.assertions import assert_invalid_input

pytestmark = pytest.mark.resource("PlatformConfig")

CLAUSE = clauses.PLATFORM_CONFIG
UUID = r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}"
UTC_TIMESTAMP = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|\+00:00)$")


@pytest.mark.requirement("CONFIG-RESOURCE-FIELDS", "COMMON-ID-FORMAT", "COMMON-JSON-BODIES")
def test_platform_config_follows_its_schema(client):
    response = client.get("/config")  # the client validates against the PlatformConfig schema
    config = response.json
    check(
        isinstance(config.get("id"), str) and re.fullmatch(rf"PlatformConfig:{UUID}", config["id"]),
        "Conventions",
        "record identifiers have the form PlatformConfig:<uuid>",
        observed=config.get("id"),
        exchange=response.exchange,
    )


@pytest.mark.requirement("COMMON-TIMESTAMP-UTC")
def test_platform_config_timestamps_are_utc(client):
    response = client.get("/config")
    for name in ("createdAt", "updatedAt"):
        value = response.json.get(name)
        if value is None:
            continue  # presence is the schema's business
        check(
            isinstance(value, str) and UTC_TIMESTAMP.match(value),
            "Conventions",
            f"timestamps are ISO 8601 UTC strings; {name} is not",
            observed=value,
            exchange=response.exchange,
        )


@pytest.mark.requirement(
    "CONFIG-CURRENCY-AMOUNTS-REQUIRED", "CONFIG-COUNTERPARTY-FIELDS", "COMMON-MONEY-INTEGER"
)
def test_supported_currency_entries_carry_their_required_fields(client):
    response = client.get("/config")
    entries = response.json.get("supportedCurrencies") or []
    if not entries:
        pytest.skip("the platform lists no supportedCurrencies entry to inspect")
    for index, entry in enumerate(entries):
        for name in ("minAmount", "maxAmount"):
            value = entry.get(name)
            check(
                isinstance(value, int) and not isinstance(value, bool),
                CLAUSE,
                f"supportedCurrencies[{index}].{name} is a required integer in the smallest unit",
                observed=value,
                exchange=response.exchange,
                requirement="CONFIG-CURRENCY-AMOUNTS-REQUIRED",
            )
        check(
            isinstance(entry.get("requiredCounterpartyFields"), list),
            CLAUSE,
            f"supportedCurrencies[{index}].requiredCounterpartyFields is a required array",
            observed=entry.get("requiredCounterpartyFields"),
            exchange=response.exchange,
            requirement="CONFIG-COUNTERPARTY-FIELDS",
        )


@pytest.mark.requirement("CONFIG-UMA-DOMAIN-DEFAULT")
def test_an_uma_domain_always_applies(client):
    response = client.get("/config")
    domain = response.json.get("umaDomain")
    check(
        isinstance(domain, str) and domain.strip() != "",
        CLAUSE,
        "umaDomain is the domain of all UMA addresses, and a default applies when none is set",
        observed=domain,
        exchange=response.exchange,
    )


@pytest.mark.requirement("CONFIG-PROVIDER-FIELDS-NAMES")
def test_provider_required_customer_fields_are_user_info_field_names(client):
    response = client.get("/config")
    for index, entry in enumerate(response.json.get("supportedCurrencies") or []):
        names = entry.get("providerRequiredCustomerFields")
        if names is None:
            continue  # the field is read-only and may be omitted
        unknown = (
            [n for n in names if n not in USER_INFO_FIELD_NAMES]
            if isinstance(names, list)
            else names
        )
        check(
            isinstance(names, list) and not unknown,
            CLAUSE,
            f"supportedCurrencies[{index}].providerRequiredCustomerFields holds UserInfoFieldName "
            f"values ({', '.join(USER_INFO_FIELD_NAMES)})",
            observed=unknown,
            exchange=response.exchange,
        )


@pytest.mark.writes
@pytest.mark.requirement("CONFIG-CURRENCY-CODE-ISO4217")
@pytest.mark.parametrize("code", ["usd", "US", "DOLLARS", 840])
def test_currency_codes_must_be_iso_4217(scratch_platform, code):
    client = scratch_platform
    entry = {"currencyCode": code, "minAmount": 1, "maxAmount": 100,
             "requiredCounterpartyFields": []}  # fmt: skip
    response = client.patch("/config", json={"supportedCurrencies": [entry]})
    assert_invalid_input(response, [("supportedCurrencies", 0, "currencyCode")])


_AMOUNTS = pytest.mark.requirement("CONFIG-CURRENCY-AMOUNTS-REQUIRED")
_COUNTERPARTY = pytest.mark.requirement("CONFIG-COUNTERPARTY-FIELDS")


@pytest.mark.writes
@pytest.mark.parametrize(
    ("change", "path"),
    [  # each case is about one rule: its failure is charged there alone
        pytest.param({"minAmount": None}, ("minAmount",), marks=_AMOUNTS, id="min-missing"),
        pytest.param({"maxAmount": "1000"}, ("maxAmount",), marks=_AMOUNTS, id="max-string"),
        pytest.param({"minAmount": 2.5}, ("minAmount",), marks=_AMOUNTS, id="min-float"),
        pytest.param(
            {"requiredCounterpartyFields": None},
            ("requiredCounterpartyFields",),
            marks=_COUNTERPARTY,
            id="counterparty-missing",
        ),
        pytest.param(
            {"requiredCounterpartyFields": [{"name": "SHOE_SIZE", "mandatory": True}]},
            ("requiredCounterpartyFields", 0, "name"),
            marks=_COUNTERPARTY,
            id="counterparty-name",
        ),
    ],
)
def test_currency_entry_rules(scratch_platform, change, path):
    client = scratch_platform
    codes = known_currency_codes(client.get("/config").json) or ["USD"]
    entry = {"currencyCode": codes[0], "minAmount": 1, "maxAmount": 100,
             "requiredCounterpartyFields": [{"name": "FULL_NAME", "mandatory": True}]}  # fmt: skip
    for key, value in change.items():
        if value is None:
            entry.pop(key)
        else:
            entry[key] = value
    response = client.patch("/config", json={"supportedCurrencies": [entry]})
    amounts = path[0] in ("minAmount", "maxAmount")
    assert_invalid_input(
        response,
        [("supportedCurrencies", 0, *path)],
        requirement="CONFIG-CURRENCY-AMOUNTS-REQUIRED" if amounts else "CONFIG-COUNTERPARTY-FIELDS",
    )
