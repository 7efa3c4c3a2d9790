"""Checks for the fault modes of ``reference/faults/customers.py``: customers: KYC and KYB
outcomes, consents, contacts, documents; ``test_faults`` adds them to its ``CHECKS``."""

from __future__ import annotations

from datetime import datetime
from typing import Any

import httpx

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
from .reference_helpers import (
    Delivery,
    FaultChecks,
    RunningSandbox,
    WebhookReceiver,
    invalid_fields,
)

CUSTOMERS_CHECKS = FaultChecks()
check = CUSTOMERS_CHECKS.add


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


def _second_consent_patched(client: httpx.Client) -> tuple[str, dict[str, Any]]:
    """A customer created with a privacy-policy consent, then PATCHed with end-user terms:
    its URL and the PATCH answer."""
    body = individual(agreementConsents=[consent("SERVICE_PRIVACY_POLICY")])
    customer = created(client.post("/customers", json=body))
    url = f"/customers/{customer['id']}"
    return url, client.patch(url, json={"agreementConsents": [consent()]}).json()


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
        body = individual()
        del body["birthDate"], body["nationality"]
        customer = created(client.post("/customers", json=body))
        created(upload(client, customer["id"]))
        verification = submit(client, customer["id"])
    assert verification["verificationStatus"] == "RESOLVE_ERRORS"
    assert error_fields(verification) == {(customer["id"], "nationality")}


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
        _, patched = _second_consent_patched(client)
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


@check("contact-verified-on-resend")
def _(sandbox: RunningSandbox, receiver: WebhookReceiver) -> None:
    with sandbox.client() as client:
        body = individual(region="FR", email="fr@example.fr")
        customer = created(client.post("/customers", json=body))
        path = f"/customers/{customer['id']}"
        assert client.post(f"{path}/verify-email").status_code == 200
        assert client.get(path).json()["contactVerification"] == {"email": "PENDING"}
        assert client.post(f"{path}/verify-email").status_code == 200  # no confirm between
        assert client.get(path).json()["contactVerification"] == {"email": "VERIFIED"}


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


@check("customer-due-diligence-ignored")
def _(sandbox: RunningSandbox, receiver: WebhookReceiver) -> None:
    fields = {"purposeOfAccount": "PERSONAL_USE", "sourceOfFunds": "SALARY"}
    with sandbox.client() as client:
        customer = created(client.post("/customers", json=individual(**fields)))
        assert not set(fields) & set(customer)  # accepted, kept nowhere
        patched = client.patch(f"/customers/{customer['id']}", json=fields)
        assert patched.status_code == 200 and not set(fields) & set(patched.json())
        read = client.get(f"/customers/{customer['id']}").json()
        assert not set(fields) & set(read)
        assert read["fullName"] == "Ann Lee 001"  # the other fields are kept


@check("patch-answer-drops-consents")
def _(sandbox: RunningSandbox, receiver: WebhookReceiver) -> None:
    with sandbox.client() as client:
        url, patched = _second_consent_patched(client)
        read = client.get(url).json()
    assert [c["type"] for c in patched["agreementConsents"]] == ["SERVICE_END_USER_TERMS"]
    assert sorted(c["type"] for c in read["agreementConsents"]) == [
        "SERVICE_END_USER_TERMS",
        "SERVICE_PRIVACY_POLICY",
    ]  # only the answer drops it: what is stored is whole
