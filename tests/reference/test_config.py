"""``GET /config`` and ``PATCH /config``: shape, round trip, read-only fields, isolation."""

from __future__ import annotations

import re
import threading
from datetime import datetime

import httpx
import pytest

ISO_MS = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z")
CONFIG_ID = re.compile(
    r"PlatformConfig:[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"
)

NEW_CURRENCIES = [
    {
        "currencyCode": "GBP",
        "minAmount": 0,
        "maxAmount": 500_00,
        "requiredCounterpartyFields": [
            {"name": "FULL_NAME", "mandatory": True},
            {"name": "EMAIL", "mandatory": False},
        ],
    },
    {"currencyCode": "JPY", "minAmount": 100, "maxAmount": 100, "requiredCounterpartyFields": []},
]


def moment(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


def test_get_config_has_every_field(client: httpx.Client) -> None:
    response = client.get("/config")
    assert response.status_code == 200
    body = response.json()
    assert CONFIG_ID.fullmatch(body["id"])
    assert isinstance(body["umaDomain"], str) and "." in body["umaDomain"]
    assert isinstance(body["proxyUmaSubdomain"], str) and body["proxyUmaSubdomain"]
    assert "webhookEndpoint" not in body  # not set yet: absent, never null (§2)
    assert isinstance(body["feeConfigs"], list)
    assert "cardTokenization2faConfig" not in body
    assert ISO_MS.fullmatch(body["createdAt"]) and ISO_MS.fullmatch(body["updatedAt"])


def test_seeded_currencies_carry_provider_required_fields(client: httpx.Client) -> None:
    client.patch("/config", json={"supportedCurrencies": []})
    restored = client.patch(
        "/config",
        json={
            "supportedCurrencies": [
                {
                    "currencyCode": "USD",
                    "minAmount": 1,
                    "maxAmount": 10,
                    "requiredCounterpartyFields": [],
                }
            ]
        },
    ).json()
    [usd] = restored["supportedCurrencies"]
    assert usd["providerRequiredCustomerFields"] == ["FULL_NAME", "BIRTH_DATE", "ADDRESS"]


def test_fresh_sandbox_seeds_usd_and_eur(launch) -> None:
    running = launch()
    for which in ("primary", "second"):
        with running.client(which) as client:
            body = client.get("/config").json()
        codes = [entry["currencyCode"] for entry in body["supportedCurrencies"]]
        assert codes == ["USD", "EUR"]
        for entry in body["supportedCurrencies"]:
            assert isinstance(entry["minAmount"], int) and isinstance(entry["maxAmount"], int)
            assert entry["requiredCounterpartyFields"]
            assert entry["providerRequiredCustomerFields"]
        assert "webhookEndpoint" not in body and "cardTokenization2faConfig" not in body
        assert body["feeConfigs"] == []
        assert body["umaDomain"] == f"{which}.sandbox.uma.example"
        assert body["createdAt"] == body["updatedAt"]


def test_patch_round_trips_every_writable_field(client: httpx.Client) -> None:
    before = client.get("/config").json()
    change = {
        "umaDomain": "pay.example.com",
        "webhookEndpoint": "https://hooks.example.com/gpsi",
        "supportedCurrencies": NEW_CURRENCIES,
        "feeConfigs": [{"sourceCurrency": "USD", "variableRateBps": 30, "fixedFee": 25}],
        "cardTokenization2faConfig": {"brandName": "Acme", "supportUrl": "https://acme.test"},
    }
    patched = client.patch("/config", json=change)
    assert patched.status_code == 200, patched.text
    fetched = client.get("/config").json()
    assert fetched == patched.json()
    for key, value in change.items():
        if key == "supportedCurrencies":
            stripped = [
                {k: v for k, v in entry.items() if k != "providerRequiredCustomerFields"}
                for entry in fetched[key]
            ]
            assert stripped == value
        else:
            assert fetched[key] == value
    assert fetched["id"] == before["id"]
    assert fetched["createdAt"] == before["createdAt"]
    assert moment(fetched["updatedAt"]) > moment(before["updatedAt"])


def test_patch_changes_only_the_fields_sent(client: httpx.Client) -> None:
    before = client.get("/config").json()
    after = client.patch("/config", json={"umaDomain": "only.example.org"}).json()
    assert after["umaDomain"] == "only.example.org"
    unchanged = {k: v for k, v in before.items() if k not in ("umaDomain", "updatedAt")}
    assert {k: v for k, v in after.items() if k in unchanged} == unchanged


def test_each_patch_moves_updated_at_forward(client: httpx.Client) -> None:
    stamps = [
        client.patch("/config", json={"feeConfigs": []}).json()["updatedAt"] for _ in range(3)
    ]
    assert [moment(s) for s in stamps] == sorted({moment(s) for s in stamps})


def test_read_only_and_unknown_keys_are_ignored(client: httpx.Client) -> None:
    before = client.get("/config").json()
    response = client.patch(
        "/config",
        json={
            "id": "PlatformConfig:00000000-0000-0000-0000-000000000000",
            "proxyUmaSubdomain": "hijack",
            "createdAt": "2000-01-01T00:00:00.000Z",
            "somethingElse": 1,
        },
    )
    assert response.status_code == 200
    after = response.json()
    for key in ("id", "proxyUmaSubdomain", "createdAt"):
        assert after[key] == before[key]
    assert "somethingElse" not in after


def test_provider_required_fields_on_input_are_ignored(client: httpx.Client) -> None:
    entry = {**NEW_CURRENCIES[0], "providerRequiredCustomerFields": ["TAX_ID"]}
    body = client.patch("/config", json={"supportedCurrencies": [entry]}).json()
    assert body["supportedCurrencies"][0]["providerRequiredCustomerFields"] != ["TAX_ID"]


def test_supported_currencies_are_replaced_whole(client: httpx.Client) -> None:
    client.patch("/config", json={"supportedCurrencies": NEW_CURRENCIES})
    body = client.patch("/config", json={"supportedCurrencies": NEW_CURRENCIES[1:]}).json()
    assert [e["currencyCode"] for e in body["supportedCurrencies"]] == ["JPY"]


def test_null_clears_webhook_endpoint_and_two_fa_and_resets_uma_domain(
    client: httpx.Client,
) -> None:
    client.patch(
        "/config",
        json={
            "umaDomain": "pay.example.com",
            "webhookEndpoint": "https://hooks.example.com/x",
            "cardTokenization2faConfig": {"brandName": "Acme"},
        },
    )
    body = client.patch(
        "/config",
        json={"umaDomain": None, "webhookEndpoint": None, "cardTokenization2faConfig": None},
    ).json()
    assert "webhookEndpoint" not in body and "cardTokenization2faConfig" not in body
    assert body["umaDomain"] == "primary.sandbox.uma.example"


@pytest.mark.parametrize(
    "url",
    [
        "http://127.0.0.1:8080/hook",
        "http://127.9.9.9/hook",
        "http://localhost:9000/",
        "http://[::1]:9000/hook",
        "https://example.com/hook?x=1",
    ],
)
def test_http_webhook_endpoint_accepted_on_loopback(client: httpx.Client, url: str) -> None:
    response = client.patch("/config", json={"webhookEndpoint": url})
    assert response.status_code == 200, response.text
    assert response.json()["webhookEndpoint"] == url


def test_fee_config_with_one_amount_is_accepted(client: httpx.Client) -> None:
    fees = [{"sourceCurrency": "USD", "fixedFee": 0}]
    assert client.patch("/config", json={"feeConfigs": fees}).json()["feeConfigs"] == fees


def test_platforms_see_and_change_only_their_own_config(
    client: httpx.Client, second_client: httpx.Client
) -> None:
    second_before = second_client.get("/config").json()
    primary = client.patch("/config", json={"umaDomain": "primary-only.example.com"}).json()
    second = second_client.get("/config").json()
    assert second == second_before
    assert second["id"] != primary["id"]
    assert second["proxyUmaSubdomain"] != primary["proxyUmaSubdomain"]
    changed = second_client.patch("/config", json={"umaDomain": "second-only.example.com"})
    assert changed.json()["umaDomain"] == "second-only.example.com"
    assert client.get("/config").json()["umaDomain"] == "primary-only.example.com"


def test_concurrent_patches_all_succeed(client: httpx.Client, sandbox) -> None:
    statuses: list[int] = []
    lock = threading.Lock()

    def patch(n: int) -> None:
        with sandbox.client() as own:
            status = own.patch("/config", json={"umaDomain": f"n{n}.example.com"}).status_code
        with lock:
            statuses.append(status)

    threads = [threading.Thread(target=patch, args=(n,)) for n in range(16)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(10)
    assert statuses == [200] * 16
    assert re.fullmatch(r"n\d+\.example\.com", client.get("/config").json()["umaDomain"])
