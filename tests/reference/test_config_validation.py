"""Validation of ``PATCH /config``: every rule, and every invalid field reported at once."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

GOOD_ENTRY = {
    "currencyCode": "USD",
    "minAmount": 1,
    "maxAmount": 100,
    "requiredCounterpartyFields": [{"name": "FULL_NAME", "mandatory": True}],
}


def entry(**changes: Any) -> dict[str, Any]:
    result = {**GOOD_ENTRY, **changes}
    return {k: v for k, v in result.items() if v is not ...}


def errors_of(response: httpx.Response) -> set[tuple[str, str]]:
    assert response.status_code == 400, response.text
    body = response.json()
    assert body["status"] == 400 and body["code"] == "INVALID_INPUT"
    return {(e["field"], e["constraint"]) for e in body["details"]["errors"]}


CASES: list[tuple[str, dict[str, Any], tuple[str, str]]] = [
    ("uma-not-string", {"umaDomain": 5}, ("umaDomain", "TYPE_STRING")),
    ("uma-scheme", {"umaDomain": "https://pay.example.com"}, ("umaDomain", "HOSTNAME")),
    ("uma-one-label", {"umaDomain": "localhost"}, ("umaDomain", "HOSTNAME")),
    ("uma-bad-label", {"umaDomain": "-bad.example.com"}, ("umaDomain", "HOSTNAME")),
    ("uma-with-port", {"umaDomain": "pay.example.com:443"}, ("umaDomain", "HOSTNAME")),
    ("hook-not-string", {"webhookEndpoint": 1}, ("webhookEndpoint", "TYPE_STRING")),
    (
        "hook-http-remote",
        {"webhookEndpoint": "http://example.com/h"},
        ("webhookEndpoint", "HTTPS_REQUIRED"),
    ),
    (
        "hook-http-private",
        {"webhookEndpoint": "http://10.0.0.1/h"},
        ("webhookEndpoint", "HTTPS_REQUIRED"),
    ),
    ("hook-ftp", {"webhookEndpoint": "ftp://example.com/h"}, ("webhookEndpoint", "URL")),
    ("hook-no-host", {"webhookEndpoint": "https:///path"}, ("webhookEndpoint", "URL")),
    ("hook-relative", {"webhookEndpoint": "/hooks"}, ("webhookEndpoint", "URL")),
    (
        "hook-bad-port",
        {"webhookEndpoint": "https://example.com:99999/"},
        ("webhookEndpoint", "URL"),
    ),
    ("hook-bad-ipv6", {"webhookEndpoint": "https://[::1/h"}, ("webhookEndpoint", "URL")),
    ("hook-space", {"webhookEndpoint": "https://exa mple.com/h"}, ("webhookEndpoint", "URL")),
    (
        "currencies-not-array",
        {"supportedCurrencies": {"USD": 1}},
        ("supportedCurrencies", "TYPE_ARRAY"),
    ),
    ("currencies-null", {"supportedCurrencies": None}, ("supportedCurrencies", "TYPE_ARRAY")),
    (
        "entry-not-object",
        {"supportedCurrencies": ["USD"]},
        ("supportedCurrencies[0]", "TYPE_OBJECT"),
    ),
    (
        "code-missing",
        {"supportedCurrencies": [entry(currencyCode=...)]},
        ("supportedCurrencies[0].currencyCode", "REQUIRED"),
    ),
    (
        "code-lowercase",
        {"supportedCurrencies": [entry(currencyCode="usd")]},
        ("supportedCurrencies[0].currencyCode", "ISO_4217"),
    ),
    (
        "code-unknown",
        {"supportedCurrencies": [entry(currencyCode="XYZ")]},
        ("supportedCurrencies[0].currencyCode", "ISO_4217"),
    ),
    (
        "code-crypto",
        {"supportedCurrencies": [entry(currencyCode="USDC")]},
        ("supportedCurrencies[0].currencyCode", "ISO_4217"),
    ),
    (
        "code-number",
        {"supportedCurrencies": [entry(currencyCode=840)]},
        ("supportedCurrencies[0].currencyCode", "TYPE_STRING"),
    ),
    (
        "min-missing",
        {"supportedCurrencies": [entry(minAmount=...)]},
        ("supportedCurrencies[0].minAmount", "REQUIRED"),
    ),
    (
        "max-missing",
        {"supportedCurrencies": [entry(maxAmount=...)]},
        ("supportedCurrencies[0].maxAmount", "REQUIRED"),
    ),
    (
        "min-float",
        {"supportedCurrencies": [entry(minAmount=1.5)]},
        ("supportedCurrencies[0].minAmount", "TYPE_INTEGER"),
    ),
    (
        "max-bool",
        {"supportedCurrencies": [entry(maxAmount=True)]},
        ("supportedCurrencies[0].maxAmount", "TYPE_INTEGER"),
    ),
    (
        "max-string",
        {"supportedCurrencies": [entry(maxAmount="100")]},
        ("supportedCurrencies[0].maxAmount", "TYPE_INTEGER"),
    ),
    (
        "min-negative",
        {"supportedCurrencies": [entry(minAmount=-1)]},
        ("supportedCurrencies[0].minAmount", "MINIMUM"),
    ),
    (
        "fields-missing",
        {"supportedCurrencies": [entry(requiredCounterpartyFields=...)]},
        ("supportedCurrencies[0].requiredCounterpartyFields", "REQUIRED"),
    ),
    (
        "fields-not-array",
        {"supportedCurrencies": [entry(requiredCounterpartyFields="FULL_NAME")]},
        ("supportedCurrencies[0].requiredCounterpartyFields", "TYPE_ARRAY"),
    ),
    (
        "field-not-object",
        {"supportedCurrencies": [entry(requiredCounterpartyFields=["FULL_NAME"])]},
        ("supportedCurrencies[0].requiredCounterpartyFields[0]", "TYPE_OBJECT"),
    ),
    (
        "field-bad-name",
        {
            "supportedCurrencies": [
                entry(requiredCounterpartyFields=[{"name": "SHOE_SIZE", "mandatory": True}])
            ]
        },
        ("supportedCurrencies[0].requiredCounterpartyFields[0].name", "ENUM"),
    ),
    (
        "field-no-mandatory",
        {"supportedCurrencies": [entry(requiredCounterpartyFields=[{"name": "EMAIL"}])]},
        ("supportedCurrencies[0].requiredCounterpartyFields[0].mandatory", "REQUIRED"),
    ),
    (
        "field-mandatory-string",
        {
            "supportedCurrencies": [
                entry(requiredCounterpartyFields=[{"name": "EMAIL", "mandatory": "yes"}])
            ]
        },
        ("supportedCurrencies[0].requiredCounterpartyFields[0].mandatory", "TYPE_BOOLEAN"),
    ),
    (
        "field-duplicate",
        {
            "supportedCurrencies": [
                entry(
                    requiredCounterpartyFields=[
                        {"name": "EMAIL", "mandatory": True},
                        {"name": "EMAIL", "mandatory": False},
                    ]
                )
            ]
        },
        ("supportedCurrencies[0].requiredCounterpartyFields[1].name", "DUPLICATE"),
    ),
    (
        "currency-duplicate",
        {"supportedCurrencies": [entry(), entry(minAmount=5)]},
        ("supportedCurrencies[1].currencyCode", "DUPLICATE"),
    ),
    ("fees-not-array", {"feeConfigs": {"sourceCurrency": "USD"}}, ("feeConfigs", "TYPE_ARRAY")),
    ("fee-not-object", {"feeConfigs": [30]}, ("feeConfigs[0]", "TYPE_OBJECT")),
    (
        "fee-eur",
        {"feeConfigs": [{"sourceCurrency": "EUR", "fixedFee": 1}]},
        ("feeConfigs[0].sourceCurrency", "USD_ONLY"),
    ),
    (
        "fee-no-currency",
        {"feeConfigs": [{"fixedFee": 1}]},
        ("feeConfigs[0].sourceCurrency", "REQUIRED"),
    ),
    (
        "fee-no-amounts",
        {"feeConfigs": [{"sourceCurrency": "USD"}]},
        ("feeConfigs[0]", "AT_LEAST_ONE"),
    ),
    (
        "fee-bps-high",
        {"feeConfigs": [{"sourceCurrency": "USD", "variableRateBps": 10001}]},
        ("feeConfigs[0].variableRateBps", "MAXIMUM"),
    ),
    (
        "fee-bps-negative",
        {"feeConfigs": [{"sourceCurrency": "USD", "variableRateBps": -1}]},
        ("feeConfigs[0].variableRateBps", "MINIMUM"),
    ),
    (
        "fee-bps-float",
        {"feeConfigs": [{"sourceCurrency": "USD", "variableRateBps": 0.5}]},
        ("feeConfigs[0].variableRateBps", "TYPE_INTEGER"),
    ),
    (
        "fee-fixed-negative",
        {"feeConfigs": [{"sourceCurrency": "USD", "fixedFee": -5}]},
        ("feeConfigs[0].fixedFee", "MINIMUM"),
    ),
    (
        "fee-fixed-past-the-declared-bound",  # the served document's maximum, 10^15
        {"feeConfigs": [{"sourceCurrency": "USD", "fixedFee": 10**15 + 1}]},
        ("feeConfigs[0].fixedFee", "MAXIMUM"),
    ),
    (
        "fee-fixed-past-64-bits",
        {"feeConfigs": [{"sourceCurrency": "USD", "fixedFee": 2**64}]},
        ("feeConfigs[0].fixedFee", "INT64"),
    ),
    (
        "fee-duplicate",
        {
            "feeConfigs": [
                {"sourceCurrency": "USD", "fixedFee": 1},
                {"sourceCurrency": "USD", "fixedFee": 2},
            ]
        },
        ("feeConfigs[1].sourceCurrency", "DUPLICATE"),
    ),
    (
        "2fa-not-object",
        {"cardTokenization2faConfig": "Acme"},
        ("cardTokenization2faConfig", "TYPE_OBJECT"),
    ),
    (
        "2fa-value-not-string",
        {"cardTokenization2faConfig": {"brandName": 7}},
        ("cardTokenization2faConfig.brandName", "TYPE_STRING"),
    ),
]


@pytest.mark.parametrize(("patch", "expected"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_each_rule_is_enforced(
    client: httpx.Client, patch: dict[str, Any], expected: tuple[str, str]
) -> None:
    assert errors_of(client.patch("/config", json=patch)) == {expected}


def test_an_integral_number_is_an_integer(client: httpx.Client) -> None:
    """``1.0`` is an integer as JSON Schema counts it, so an amount takes it as 1."""
    answer = client.patch("/config", json={"supportedCurrencies": [entry(minAmount=1.0)]})
    assert answer.status_code == 200, answer.text
    assert answer.json()["supportedCurrencies"][0]["minAmount"] == 1
    assert '"minAmount":1,' in answer.text.replace(" ", "")


def test_every_invalid_field_is_listed_at_once(client: httpx.Client) -> None:
    response = client.patch(
        "/config",
        json={
            "umaDomain": "not a domain",
            "webhookEndpoint": "http://example.com/h",
            "supportedCurrencies": [
                entry(currencyCode="usd", minAmount=1.5),
                entry(currencyCode="EUR", minAmount=-9),
            ],
            "feeConfigs": [{"sourceCurrency": "EUR", "variableRateBps": 20000}],
            "cardTokenization2faConfig": {"brandName": None},
        },
    )
    assert errors_of(response) == {
        ("umaDomain", "HOSTNAME"),
        ("webhookEndpoint", "HTTPS_REQUIRED"),
        ("supportedCurrencies[0].currencyCode", "ISO_4217"),
        ("supportedCurrencies[0].minAmount", "TYPE_INTEGER"),
        ("supportedCurrencies[1].minAmount", "MINIMUM"),
        ("feeConfigs[0].sourceCurrency", "USD_ONLY"),
        ("feeConfigs[0].variableRateBps", "MAXIMUM"),
        ("cardTokenization2faConfig.brandName", "TYPE_STRING"),
    }
    assert response.json()["message"].startswith("8 invalid fields: ")
    assert "feeConfigs[0].variableRateBps" in response.json()["message"]  # names each
    for error in response.json()["details"]["errors"]:
        assert error["message"]


def test_invalid_patch_changes_nothing(client: httpx.Client) -> None:
    before = client.get("/config").json()
    response = client.patch(
        "/config",
        json={"umaDomain": "valid.example.com", "feeConfigs": [{"sourceCurrency": "EUR"}]},
    )
    assert response.status_code == 400
    assert client.get("/config").json() == before
