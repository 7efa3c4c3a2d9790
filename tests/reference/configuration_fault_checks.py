"""Checks for the fault modes of ``reference/faults/configuration.py``: platform configuration
and request validation; ``test_faults`` adds them to its ``CHECKS``."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

from .reference_helpers import (
    FaultChecks,
    RunningSandbox,
    WebhookReceiver,
    currency,
    invalid_fields,
)

CONFIGURATION_CHECKS = FaultChecks()
check = CONFIGURATION_CHECKS.add


@check("config-wrong-type")
def _(sandbox: RunningSandbox, receiver: WebhookReceiver) -> None:
    with sandbox.client() as client:
        entries = client.get("/config").json()["supportedCurrencies"]
    assert all(isinstance(e["minAmount"], str) for e in entries)


@check("config-missing-id")
def _(sandbox: RunningSandbox, receiver: WebhookReceiver) -> None:
    with sandbox.client() as client:
        assert "id" not in client.get("/config").json()


@check("config-local-timestamps")
def _(sandbox: RunningSandbox, receiver: WebhookReceiver) -> None:
    with sandbox.client() as client:
        before = client.get("/config").json()
        after = client.patch("/config", json={"umaDomain": "clock.example.com"}).json()
    for key in ("createdAt", "updatedAt"):
        assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}\+02:00", after[key])
    # Still the right instants: creation kept, update later and recent.
    assert after["createdAt"] == before["createdAt"]
    updated = datetime.fromisoformat(after["updatedAt"])
    assert updated > datetime.fromisoformat(before["updatedAt"])
    assert abs(datetime.now(UTC) - updated) < timedelta(minutes=1)


@check("config-no-default-uma-domain")
def _(sandbox: RunningSandbox, receiver: WebhookReceiver) -> None:
    with sandbox.client() as client:
        assert client.get("/config").json()["umaDomain"] is None
        set_domain = client.patch("/config", json={"umaDomain": "own.example.com"})
        assert set_domain.json()["umaDomain"] == "own.example.com"
        assert client.patch("/config", json={"umaDomain": None}).json()["umaDomain"] is None


@check("config-bad-provider-fields")
def _(sandbox: RunningSandbox, receiver: WebhookReceiver) -> None:
    with sandbox.client() as client:
        entries = client.get("/config").json()["supportedCurrencies"]
    assert entries
    for entry in entries:
        *valid, extra = entry["providerRequiredCustomerFields"]
        assert extra == "SSN" and "FULL_NAME" in valid


@check("config-provider-fields-writable")
def _(sandbox: RunningSandbox, receiver: WebhookReceiver) -> None:
    sent = currency("GBP", maxAmount=5000, providerRequiredCustomerFields=["EMAIL"])
    with sandbox.client() as client:
        response = client.patch("/config", json={"supportedCurrencies": [sent]})
        assert response.status_code == 200, response.text
        assert response.json()["supportedCurrencies"] == [sent]  # the rest applied too
        assert client.get("/config").json()["supportedCurrencies"] == [sent]
        wrong_type = currency(providerRequiredCustomerFields=[1])
        response = client.patch("/config", json={"supportedCurrencies": [wrong_type]})
    assert invalid_fields(response) == {"supportedCurrencies[0].providerRequiredCustomerFields[0]"}


@check("config-proxy-subdomain-writable")
def _(sandbox: RunningSandbox, receiver: WebhookReceiver) -> None:
    with sandbox.client() as client:
        response = client.patch("/config", json={"proxyUmaSubdomain": "chosen-by-platform"})
        assert response.status_code == 200
        assert response.json()["proxyUmaSubdomain"] == "chosen-by-platform"
        assert client.get("/config").json()["proxyUmaSubdomain"] == "chosen-by-platform"


@check("config-patch-ignored")
def _(sandbox: RunningSandbox, receiver: WebhookReceiver) -> None:
    with sandbox.client() as client:
        response = client.patch("/config", json={"umaDomain": "new.example.com"})
        assert response.status_code == 200
        assert client.get("/config").json()["umaDomain"] != "new.example.com"


@check("config-patch-resets-unsent")
def _(sandbox: RunningSandbox, receiver: WebhookReceiver) -> None:
    with sandbox.client() as client:
        seeded = client.get("/config").json()
        changed = {
            "webhookEndpoint": receiver.url,
            "supportedCurrencies": [currency("GBP")],
            "feeConfigs": [{"sourceCurrency": "USD", "fixedFee": 5}],
            "cardTokenization2faConfig": {"brandName": "Acme"},
        }
        assert client.patch("/config", json=changed).status_code == 200
        body = client.patch("/config", json={"umaDomain": "only.example.com"}).json()
    assert body["umaDomain"] == "only.example.com"
    assert body["supportedCurrencies"] == seeded["supportedCurrencies"]
    assert body["feeConfigs"] == []
    assert "cardTokenization2faConfig" not in body
    assert body["webhookEndpoint"] == receiver.url  # spared: the suite's sink relies on it


@check("config-fees-dropped")
def _(sandbox: RunningSandbox, receiver: WebhookReceiver) -> None:
    with sandbox.client() as client:
        before = client.get("/config").json()["feeConfigs"]
        fees = [{"sourceCurrency": "USD", "variableRateBps": 25}]
        response = client.patch("/config", json={"feeConfigs": fees, "umaDomain": "x.example.com"})
        assert response.status_code == 200
        assert response.json()["feeConfigs"] == before != fees
        assert response.json()["umaDomain"] == "x.example.com"  # other changes still apply
        assert client.get("/config").json()["feeConfigs"] == before
        invalid = [{"sourceCurrency": "EUR", "fixedFee": 1}]
        response = client.patch("/config", json={"feeConfigs": invalid})
    assert invalid_fields(response) == {"feeConfigs[0].sourceCurrency"}


@check("config-accept-http-webhook")
def _(sandbox: RunningSandbox, receiver: WebhookReceiver) -> None:
    with sandbox.client() as client:
        response = client.patch("/config", json={"webhookEndpoint": "http://example.com/h"})
    assert response.status_code == 200


@check("config-fee-any-currency")
def _(sandbox: RunningSandbox, receiver: WebhookReceiver) -> None:
    fees = [{"sourceCurrency": "EUR", "fixedFee": 1}]
    with sandbox.client() as client:
        response = client.patch("/config", json={"feeConfigs": fees})
    assert response.status_code == 200
    assert response.json()["feeConfigs"] == fees


@check("config-accept-lowercase-currency")
def _(sandbox: RunningSandbox, receiver: WebhookReceiver) -> None:
    with sandbox.client() as client:
        sent = [currency("usd"), currency("Xyz")]
        response = client.patch("/config", json={"supportedCurrencies": sent})
        assert response.status_code == 200, response.text
        codes = [e["currencyCode"] for e in response.json()["supportedCurrencies"]]
        assert codes == ["USD", "XYZ"]
        not_letters = [currency("US1"), currency("USDC"), currency(840)]
        response = client.patch("/config", json={"supportedCurrencies": not_letters})
    assert invalid_fields(response) == {
        f"supportedCurrencies[{i}].currencyCode" for i in range(len(not_letters))
    }


@check("config-amounts-optional")
def _(sandbox: RunningSandbox, receiver: WebhookReceiver) -> None:
    bare = currency()
    del bare["minAmount"], bare["maxAmount"]
    with sandbox.client() as client:
        response = client.patch("/config", json={"supportedCurrencies": [bare]})
        assert response.status_code == 200, response.text
        [entry] = response.json()["supportedCurrencies"]
        assert entry["minAmount"] is None and entry["maxAmount"] is None
        wrong_type = currency(minAmount="1", maxAmount=1.5)
        response = client.patch("/config", json={"supportedCurrencies": [wrong_type]})
    assert invalid_fields(response) == {
        "supportedCurrencies[0].minAmount",
        "supportedCurrencies[0].maxAmount",
    }


@check("config-shared-across-platforms")
def _(sandbox: RunningSandbox, receiver: WebhookReceiver) -> None:
    with sandbox.client() as client, sandbox.client("second") as second:
        client.patch("/config", json={"umaDomain": "leaked.example.com"})
        assert second.get("/config").json()["umaDomain"] == "leaked.example.com"
