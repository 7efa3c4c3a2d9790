"""Each fault mode breaks exactly the behaviour it names (the self-tests rely on it)."""

from __future__ import annotations

import base64
import math
import re
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from fractions import Fraction

import httpx
import pytest

from reference.faults import FAULTS

from .accounts_fault_checks import ACCOUNTS_CHECKS
from .agents_fault_checks import AGENT_CHECKS
from .cards_fault_checks import CARD_CHECKS
from .customer_helpers import (
    PDF,
    business,
    business_info,
    complete_business,
    complete_individual,
    consent,
    created,
    error_fields,
    individual,
    png,
    status_of,
    submit,
    upload,
)
from .invitations_fault_checks import INVITATION_CHECKS
from .limits_fault_checks import LIMIT_CHECKS
from .money_helpers import (
    CONCURRENT,
    approved,
    available,
    execute,
    expected,
    external,
    funded,
    payment_events,
    quote,
    race,
    transaction,
    wait_past,
)
from .money_rule_fault_checks import MONEY_RULE_CHECKS
from .pull_fault_checks import PULL_CHECKS
from .reference_helpers import (
    Delivery,
    RunningSandbox,
    WebhookReceiver,
    currency,
    invalid_fields,
    signature_valid,
    start_sandbox,
    with_webhook_id,
)
from .sca_fault_checks import SCA_CHECKS, SCA_FLAGS
from .states_fault_checks import STATE_CHECKS
from .transfers_fault_checks import TRANSFER_CHECKS
from .wallet_fault_checks import WALLET_CHECKS

Check = Callable[[RunningSandbox, WebhookReceiver], None]
CHECKS: dict[str, Check] = {}
CHECKS.update(LIMIT_CHECKS)  # limits, refused rates, holds, money resource shapes
CHECKS.update(ACCOUNTS_CHECKS)  # rule-based, ownership, payout scenarios, incoming
CHECKS.update(SCA_CHECKS)  # strong customer authentication
CHECKS.update(TRANSFER_CHECKS)  # just-in-time funding, UMA, on-chain, deprecated transfers
CHECKS.update(STATE_CHECKS)  # internal-account states: frozen, closed, failed
CHECKS.update(PULL_CHECKS)  # pull-source scenarios and fee arithmetic
CHECKS.update(WALLET_CHECKS)  # embedded-wallet authentication
CHECKS.update(MONEY_RULE_CHECKS)  # money rules broken on one path only
CHECKS.update(CARD_CHECKS)  # cards: declines, reversals, returns, events, tokenize
CHECKS.update(AGENT_CHECKS)  # agents: redeem, bearer binding and policy, approval
CHECKS.update(INVITATION_CHECKS)  # invitations: the claim's UMA address and event


def check(name: str) -> Callable[[Check], Check]:
    def register(function: Check) -> Check:
        CHECKS[name] = function
        return function

    return register


def deliver_test_event(sandbox: RunningSandbox, receiver: WebhookReceiver):
    with sandbox.client() as client:
        client.patch("/config", json={"webhookEndpoint": receiver.url})
        response = client.post("/sandbox/webhooks/test")
    assert response.status_code == 200
    [delivery] = receiver.wait_for(bool)
    return response.json()["webhookId"], delivery


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
    assert body["cardTokenization2faConfig"] is None
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


@check("validation-first-error-only")
def _(sandbox: RunningSandbox, receiver: WebhookReceiver) -> None:
    with sandbox.client() as client:
        response = client.patch("/config", json={"umaDomain": 1, "feeConfigs": 2})
    assert response.status_code == 400
    assert len(response.json()["details"]["errors"]) == 1


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


@check("auth-accept-missing")
def _(sandbox: RunningSandbox, receiver: WebhookReceiver) -> None:
    with sandbox.client(None) as anonymous:
        assert anonymous.get("/config").status_code == 200


@check("auth-accept-wrong-secret")
def _(sandbox: RunningSandbox, receiver: WebhookReceiver) -> None:
    token_id, _ = sandbox.credentials()
    response = httpx.get(f"{sandbox.base_url}/config", auth=(token_id, "wrong"))
    assert response.status_code == 200


@check("auth-accept-production-keys")
def _(sandbox: RunningSandbox, receiver: WebhookReceiver) -> None:
    with sandbox.client("production") as production:
        assert production.get("/config").status_code == 200


@check("auth-no-reason")
def _(sandbox: RunningSandbox, receiver: WebhookReceiver) -> None:
    response = httpx.get(f"{sandbox.base_url}/config")
    assert response.status_code == 401
    assert "reason" not in response.json()
    assert "reason" not in response.json().get("details", {})


@check("webhook-forged-signature")
def _(sandbox: RunningSandbox, receiver: WebhookReceiver) -> None:
    _, delivery = deliver_test_event(sandbox, receiver)
    signature = delivery.headers["X-Service-Signature"]
    base64.b64decode(signature, validate=True)  # still a well-formed signature
    assert not signature_valid(sandbox.banner["webhook_public_key_pem"], delivery.body, signature)


@check("webhook-tampered-body")
def _(sandbox: RunningSandbox, receiver: WebhookReceiver) -> None:
    webhook_id, delivery = deliver_test_event(sandbox, receiver)
    assert delivery.json()["webhookId"] == webhook_id  # same JSON value, other bytes
    assert not signature_valid(
        sandbox.banner["webhook_public_key_pem"],
        delivery.body,
        delivery.headers["X-Service-Signature"],
    )


@check("webhook-unsigned")
def _(sandbox: RunningSandbox, receiver: WebhookReceiver) -> None:
    _, delivery = deliver_test_event(sandbox, receiver)
    assert "X-Service-Signature" not in delivery.headers


@check("webhook-test-not-sent")
def _(sandbox: RunningSandbox, receiver: WebhookReceiver) -> None:
    with sandbox.client() as client:
        client.patch("/config", json={"webhookEndpoint": receiver.url})
        assert client.post("/sandbox/webhooks/test").status_code == 200
    # Proving an absence needs a bounded wait; a healthy sandbox delivers in milliseconds.
    with pytest.raises(AssertionError, match="not met"):
        receiver.wait_for(bool, timeout=1.0)


@check("events-never-delivered")
def _(sandbox: RunningSandbox, receiver: WebhookReceiver) -> None:
    with sandbox.client() as client:
        client.patch("/config", json={"webhookEndpoint": receiver.url})
        customer = complete_individual(client, "Ann Lee 002")
        submit(client, customer["id"])
        webhook_id = client.post("/sandbox/webhooks/test").json()["webhookId"]
    # the TEST event, queued after the customer's events, still arrives; nothing else does
    deliveries = receiver.wait_for(with_webhook_id(webhook_id))
    assert [d.json().get("type") for d in deliveries] == ["TEST"]


@check("webhook-test-wrong-shape")
def _(sandbox: RunningSandbox, receiver: WebhookReceiver) -> None:
    webhook_id, delivery = deliver_test_event(sandbox, receiver)
    event = delivery.json()
    assert "webhookId" not in event and event["test"] is False
    assert not with_webhook_id(webhook_id)([delivery])


@check("webhook-forged-copy-first")
def _(sandbox: RunningSandbox, receiver: WebhookReceiver) -> None:
    with sandbox.client() as client:
        client.patch("/config", json={"webhookEndpoint": receiver.url})
        webhook_id = client.post("/sandbox/webhooks/test").json()["webhookId"]

    def mine(deliveries: list[Delivery]) -> list[Delivery]:
        return [d for d in deliveries if d.json().get("webhookId") == webhook_id]

    forged, authentic = mine(receiver.wait_for(lambda ds: len(mine(ds)) >= 2))
    key = sandbox.banner["webhook_public_key_pem"]
    signature = authentic.headers["X-Service-Signature"]
    assert forged.headers["X-Service-Signature"] == signature  # the authentic one's, copied
    assert forged.json()["timestamp"] < authentic.json()["timestamp"]
    assert not signature_valid(key, forged.body, signature)
    assert signature_valid(key, authentic.body, signature)


@check("wrong-version-segment")
def _(sandbox: RunningSandbox, receiver: WebhookReceiver) -> None:
    assert sandbox.base_url.endswith("/2024-01-01")
    right = sandbox.base_url.replace("/2024-01-01", "/2025-10-13")
    token_id, secret = sandbox.credentials()
    assert httpx.get(f"{right}/config", auth=(token_id, secret)).status_code == 404
    with sandbox.client() as client:
        assert client.get("/config").status_code == 200


def customer_events(receiver: WebhookReceiver, customer_id: str, count: int) -> list[Delivery]:
    """Wait for ``count`` CUSTOMER.* deliveries about one customer; return them."""

    def mine(deliveries: list[Delivery]) -> list[Delivery]:
        return [
            d
            for d in deliveries
            if d.json().get("type", "").startswith("CUSTOMER.")
            and d.json()["data"]["id"] == customer_id
        ]

    return mine(receiver.wait_for(lambda ds: len(mine(ds)) >= count))


@check("kyc-rejected-suffix-approved")
def _(sandbox: RunningSandbox, receiver: WebhookReceiver) -> None:
    with sandbox.client() as client:
        for name in ("Ann Lee 002", "Ann Lee 005"):
            customer = complete_individual(client, name)
            assert submit(client, customer["id"])["verificationStatus"] == "APPROVED"
            assert status_of(client, customer["id"]) == "APPROVED"
        firm, _ = complete_business(client, "RC-1002")  # businesses are not affected
        assert submit(client, firm["id"])["verificationStatus"] == "REJECTED"


@check("kyc-final-status-changed")
def _(sandbox: RunningSandbox, receiver: WebhookReceiver) -> None:
    with sandbox.client() as client:
        customer = complete_individual(client, "Ann Lee 002")
        submit(client, customer["id"])
        assert status_of(client, customer["id"]) == "REJECTED"
        assert submit(client, customer["id"])["verificationStatus"] == "PENDING_MANUAL_REVIEW"
        assert status_of(client, customer["id"]) == "PENDING"


@check("verification-missing-field-omitted")
def _(sandbox: RunningSandbox, receiver: WebhookReceiver) -> None:
    with sandbox.client() as client:
        body = individual(birthDate=None, nationality=None)
        customer = created(client.post("/customers", json=body))
        created(upload(client, customer["id"]))
        verification = submit(client, customer["id"])
    assert verification["verificationStatus"] == "RESOLVE_ERRORS"
    assert error_fields(verification) == {(customer["id"], "nationality")}


@check("kyc-event-unsigned")
def _(sandbox: RunningSandbox, receiver: WebhookReceiver) -> None:
    with sandbox.client() as client:
        client.patch("/config", json={"webhookEndpoint": receiver.url})
        customer = complete_individual(client, "Ann Lee 003")
        submit(client, customer["id"])
        events = customer_events(receiver, customer["id"], 2)
        assert all("X-Service-Signature" not in d.headers for d in events)
        webhook_id = client.post("/sandbox/webhooks/test").json()["webhookId"]
    [test_event] = [
        d for d in receiver.wait_for(with_webhook_id(webhook_id)) if d.json().get("test")
    ]
    assert signature_valid(
        sandbox.banner["webhook_public_key_pem"],
        test_event.body,
        test_event.headers["X-Service-Signature"],
    )


@check("kyc-events-out-of-order")
def _(sandbox: RunningSandbox, receiver: WebhookReceiver) -> None:
    with sandbox.client() as client:
        client.patch("/config", json={"webhookEndpoint": receiver.url})
        customer = complete_individual(client, "Ann Lee 002")
        submit(client, customer["id"])
    stamps = {
        d.json()["type"]: datetime.fromisoformat(d.json()["timestamp"].replace("Z", "+00:00"))
        for d in customer_events(receiver, customer["id"], 2)
    }
    assert stamps["CUSTOMER.KYC_REJECTED"] < stamps["CUSTOMER.KYC_PENDING"]


@check("rename-rederives-status")
def _(sandbox: RunningSandbox, receiver: WebhookReceiver) -> None:
    with sandbox.client() as client:
        customer = complete_individual(client, "Ann Lee 002")
        submit(client, customer["id"])
        renamed = client.patch(f"/customers/{customer['id']}", json={"fullName": "Ann Lee 001"})
        assert renamed.json()["kycStatus"] == "PENDING"
        approved = complete_individual(client, "Ann Lee 003")
        submit(client, approved["id"])
        renamed = client.patch(f"/customers/{approved['id']}", json={"fullName": "Ann Lee 002"})
        assert renamed.json()["kycStatus"] == "REJECTED"


@check("consent-replaces-other-types")
def _(sandbox: RunningSandbox, receiver: WebhookReceiver) -> None:
    with sandbox.client() as client:
        body = individual(agreementConsents=[consent("SERVICE_PRIVACY_POLICY")])
        customer = created(client.post("/customers", json=body))
        url = f"/customers/{customer['id']}"
        patched = client.patch(url, json={"agreementConsents": [consent()]}).json()
    assert patched["agreementConsents"] == [consent()]


@check("consents-both-accepted")
def _(sandbox: RunningSandbox, receiver: WebhookReceiver) -> None:
    terms = consent()
    legacy = {k: v for k, v in terms.items() if k != "type"}
    body = individual(endUserTermsConsent=legacy, agreementConsents=[terms])
    with sandbox.client() as client:
        customer = created(client.post("/customers", json=body))
    assert customer["agreementConsents"] == [terms]


@check("contact-not-required-accepted")
def _(sandbox: RunningSandbox, receiver: WebhookReceiver) -> None:
    with sandbox.client() as client:
        body = individual(region="US", email="us@example.com")
        customer = created(client.post("/customers", json=body))
        assert "contactVerification" not in customer
        response = client.post(f"/customers/{customer['id']}/verify-email")
    assert response.status_code == 200


@check("kyc-link-ignores-contact")
def _(sandbox: RunningSandbox, receiver: WebhookReceiver) -> None:
    with sandbox.client() as client:
        body = individual(region="FR", email="fr@example.fr")
        customer = created(client.post("/customers", json=body))
        assert customer["contactVerification"] == {"email": "PENDING"}
        response = client.post(
            f"/customers/{customer['id']}/kyc-link", json={"redirectUri": "https://p.example/"}
        )
    assert response.status_code == 200


@check("kyc-link-reused")
def _(sandbox: RunningSandbox, receiver: WebhookReceiver) -> None:
    with sandbox.client() as client:
        customer = created(client.post("/customers", json=individual()))
        url = f"/customers/{customer['id']}/kyc-link"
        first, second = (
            client.post(url, json={"redirectUri": "https://p.example/"}).json() for _ in range(2)
        )
    assert first["kycUrl"] == second["kycUrl"]


@check("document-any-type")
def _(sandbox: RunningSandbox, receiver: WebhookReceiver) -> None:
    with sandbox.client() as client:
        customer = created(client.post("/customers", json=individual()))
        response = upload(client, customer["id"], content=b"hello", content_type="text/plain")
    assert response.status_code == 201, response.text
    assert response.json()["contentType"] == "text/plain"


@check("document-quality-unchecked")
def _(sandbox: RunningSandbox, receiver: WebhookReceiver) -> None:
    with sandbox.client() as client:
        customer = created(client.post("/customers", json=individual()))
        assert upload(client, customer["id"], content=png(100, 100)).status_code == 201
        # the type check still runs
        response = upload(client, customer["id"], content=b"hello", content_type="text/plain")
    assert invalid_fields(response) == {"file"}


@check("tax-id-unchecked")
def _(sandbox: RunningSandbox, receiver: WebhookReceiver) -> None:
    with sandbox.client() as client:
        for country, tax_id in (("US", "12"), ("GB", "GB1"), ("DE", "x")):
            info = business_info(country=country, taxId=tax_id)
            created(client.post("/customers", json=business(businessInfo=info)))


@check("regulated-suffix-ignored")
def _(sandbox: RunningSandbox, receiver: WebhookReceiver) -> None:
    assert sandbox.banner["regulated"] is True
    with sandbox.client() as client:
        for name in ("Ann Lee 001", "Ann Lee 002"):
            customer = created(client.post("/customers", json=individual(name)))
            assert customer["kycStatus"] == "UNVERIFIED"


@check("business-owner-rule-off")
def _(sandbox: RunningSandbox, receiver: WebhookReceiver) -> None:
    with sandbox.client() as client:
        firm = created(client.post("/customers", json=business("RC-8003")))
        certificate = upload(
            client,
            firm["id"],
            "CERTIFICATE_OF_INCORPORATION",
            content=PDF,
            content_type="application/pdf",
        )
        created(certificate)
        assert submit(client, firm["id"])["verificationStatus"] == "APPROVED"


@check("execute-double-debit")
def _(sandbox: RunningSandbox, receiver: WebhookReceiver) -> None:
    with sandbox.client() as client:
        holder = funded(client, 50_000)
        body = quote(client, holder.account_id(), external(client, holder.id)["id"])
        execute(client, body["id"])
        execute(client, body["id"])  # 200 instead of 409
        assert available(client, holder.id) == 30_000


@check("fee-on-receiving-side")
def _(sandbox: RunningSandbox, receiver: WebhookReceiver) -> None:
    f = Fraction(3, 1000)
    with sandbox.client() as client:
        holder = approved(client)
        eur = external(client, holder.id, "IBAN_ACCOUNT")["id"]
        received = quote(client, holder.account_id(), eur, amount=100_000, side="RECEIVING")
        net = math.ceil(Fraction(100_000) / Fraction("0.92"))
        assert received["totalSendingAmount"] == net + 50 + round(net * f)
        right = expected("RECEIVING", 100_000, "0.92", (2, 2), cross=True)
        assert received["totalSendingAmount"] < right["totalSendingAmount"]
        sent = quote(client, holder.account_id(), eur, amount=1_000_000)
        net = math.floor(Fraction(1_000_000 - 50) / (1 + f))
        assert sent["feesIncluded"] == 1_000_000 - net
        assert sent["totalReceivingAmount"] == math.floor(net * Fraction("0.92"))
        usd = external(client, holder.id)["id"]  # f is 0 within one currency: no change
        assert quote(client, holder.account_id(), usd)["feesIncluded"] == 0


@check("same-currency-rate-not-one")
def _(sandbox: RunningSandbox, receiver: WebhookReceiver) -> None:
    with sandbox.client() as client:
        holder = approved(client)
        same = quote(client, holder.account_id(), external(client, holder.id)["id"])
        assert same["exchangeRate"] == 1.01
        assert same["totalReceivingAmount"] == 10_100 and same["totalSendingAmount"] == 10_000
        eur = external(client, holder.id, "IBAN_ACCOUNT")["id"]
        assert quote(client, holder.account_id(), eur)["exchangeRate"] == 0.92


@check("execute-after-expiry")
def _(sandbox: RunningSandbox, receiver: WebhookReceiver) -> None:
    with sandbox.client() as client:
        holder = funded(client, 50_000)
        body = quote(client, holder.account_id(), external(client, holder.id)["id"])
        wait_past(body["expiresAt"])
        assert execute(client, body["id"])["status"] == "PROCESSING"
        assert available(client, holder.id) == 40_000


def failed_payout(client: httpx.Client, receiver: WebhookReceiver) -> tuple[str, str]:
    """Execute a 10 000 payout to a 099 account from 50 000; (customer id, transaction id)."""
    client.patch("/config", json={"webhookEndpoint": receiver.url})
    holder = funded(client, 50_000)
    destination = external(client, holder.id, "US_ACCOUNT", "099")["id"]
    body = quote(client, holder.account_id(), destination)
    execute(client, body["id"])
    failed = transaction(client, body["transactionId"])
    assert failed["status"] == "FAILED" and failed["refund"]["status"] == "COMPLETED"
    return holder.id, body["transactionId"]


@check("refund-event-missing")
def _(sandbox: RunningSandbox, receiver: WebhookReceiver) -> None:
    with sandbox.client() as client:
        customer_id, transaction_id = failed_payout(client, receiver)
        assert available(client, customer_id) == 50_000  # still refunded
        # one endpoint's deliveries go in outbox order: once TEST arrives, all came
        webhook_id = client.post("/sandbox/webhooks/test").json()["webhookId"]
    receiver.wait_for(with_webhook_id(webhook_id))
    events = payment_events(receiver, transaction_id, 2)
    assert [e["type"] for e in events] == ["OUTGOING_PAYMENT.PROCESSING", "OUTGOING_PAYMENT.FAILED"]


@check("money-leak-on-refund")
def _(sandbox: RunningSandbox, receiver: WebhookReceiver) -> None:
    with sandbox.client() as client:
        customer_id, transaction_id = failed_payout(client, receiver)
        assert available(client, customer_id) == 49_999
    assert len(payment_events(receiver, transaction_id, 4)) == 4  # the events are all there


@check("execute-not-atomic")
def _(sandbox: RunningSandbox, receiver: WebhookReceiver) -> None:
    with sandbox.client() as client:
        holder = funded(client, 1_000_000)
        body = quote(client, holder.account_id(), external(client, holder.id)["id"])
        codes = race(sandbox, body["id"])
        assert codes[200] > 1 and codes[200] + codes[409] == CONCURRENT, codes
        assert available(client, holder.id) == 1_000_000 - 10_000 * codes[200]
        later = quote(client, holder.account_id(), external(client, holder.id)["id"])
        execute(client, later["id"])  # sequential executes are still refused the second time
        assert client.post(f"/quotes/{later['id']}/execute").status_code == 409


# Start-up flags a check needs besides its fault.
FLAGS: dict[str, tuple[str, ...]] = {
    "regulated-suffix-ignored": ("--regulated",),
    "execute-after-expiry": ("--quote-lifetime", "1"),
}
FLAGS.update(SCA_FLAGS)


def test_every_fault_in_the_catalogue_has_a_check() -> None:
    assert set(CHECKS) == set(FAULTS)


@pytest.mark.parametrize("fault", sorted(FAULTS))
def test_fault_breaks_its_behaviour(receiver: WebhookReceiver, fault: str) -> None:
    # one sandbox per test, so xdist spreads the start-ups instead of piling them up
    sandbox = start_sandbox("--fault", fault, *FLAGS.get(fault, ()))
    try:
        assert sandbox.banner["faults"] == [fault]
        CHECKS[fault](sandbox, receiver)
    finally:
        sandbox.stop()
