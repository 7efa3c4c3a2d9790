"""How the suite onboards customers: create them, complete packets, upload, submit, link.

Tests say what they check; this module does the calls. Every step that is only set-up fails
with the clause that makes it valid (a valid customer is created, a valid document is
accepted), so a broken set-up reads as the violation it is.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Mapping
from typing import Any

import pytest

from conformance.contract import clauses
from conformance.contract.failures import check
from conformance.customers.bodies import business_body, individual_body
from conformance.customers.document_files import DocumentFile, pdf_document
from conformance.customers.verification_outcomes import FINAL_STATUSES, Outcome
from conformance.exchange.assertions import required_json
from conformance.exchange.client import ApiResponse, TargetClient
from conformance.ground.profile import TargetProfile

__all__ = [
    "CHANNELS",
    "CUSTOMERS_CLAUSE",
    "IDENTITY_DOCUMENT_TYPES",
    "Onboarding",
    "contact_channels",
    "status_field",
    "wrong_code",
]

CUSTOMERS_CLAUSE = clauses.CUSTOMERS_ENDPOINTS
IDENTITY_DOCUMENT_TYPES = ("PASSPORT", "DRIVERS_LICENSE", "NATIONAL_ID")
# The interface names no business document type; the reference's choice is the fallback when
# the target's RESOLVE_ERRORS do not list acceptedDocumentTypes for the business.
DEFAULT_BUSINESS_DOCUMENT = "CERTIFICATE_OF_INCORPORATION"
CHANNELS = {"email": "/verify-email", "phone": "/verify-phone"}


def contact_channels(customer: Mapping[str, Any]) -> dict[str, Any]:
    """The channels of a customer's ``contactVerification`` (``email``, ``phone``) and their
    states. Other keys a target adds to the object are not channels and are left out; a
    missing or non-object value lists none."""
    shown = customer.get("contactVerification")
    if not isinstance(shown, Mapping):
        return {}
    return {channel: shown[channel] for channel in CHANNELS if channel in shown}


# Customers that may or may not need contact verification: which channels a provider requires
# is its own decision (§2 Customer: contactVerification), so the suite tries several.
_CONTACT_CANDIDATES: tuple[tuple[str, dict[str, Any]], ...] = (
    ("an EEA individual with an email and a phone number",
     {"customerType": "INDIVIDUAL", "region": "DE", "nationality": "DE",
      "email": "erika.mustermann@example.com", "phoneNumber": "+4930901820"}),
    ("a US individual with an email and a phone number",
     {"customerType": "INDIVIDUAL", "region": "US", "nationality": "US",
      "email": "ada.lovelace@example.com", "phoneNumber": "+12125550142"}),
    ("an individual without email or phone number",
     {"customerType": "INDIVIDUAL", "region": "US"}),
    ("a business with an email and a phone number",
     {**business_body(), "email": "office@specimen.example.com", "phoneNumber": "+12125550143"}),
)  # fmt: skip


def status_field(customer: Mapping[str, Any]) -> str:
    """``kybStatus`` for businesses, ``kycStatus`` for individuals."""
    return "kybStatus" if customer.get("customerType") == "BUSINESS" else "kycStatus"


class Onboarding:
    """Creates and advances customers on the target for one test session."""

    def __init__(self, client: TargetClient, profile: TargetProfile) -> None:
        self.client = client
        self.profile = profile
        self._business_document_type: str | None = None

    # -- customers ---------------------------------------------------------------------------

    def create(self, body: Mapping[str, Any]) -> dict[str, Any]:
        """POST /customers with a valid body; the created customer."""
        __tracebackhide__ = True
        response = self.client.post("/customers", json=dict(body))
        customer: dict[str, Any] = required_json(
            response,
            CUSTOMERS_CLAUSE,
            "POST /customers with valid customer fields creates the customer",
            status=(200, 201),
        )
        return customer

    def individual(
        self, suffix: str = "", *, complete: bool = True, **fields: Any
    ) -> dict[str, Any]:
        """A new individual whose ``fullName`` ends in ``suffix``."""
        return self.create({**individual_body(suffix, complete=complete), **fields})

    def business(self, suffix: str = "", **fields: Any) -> dict[str, Any]:
        """A new business whose registration number ends in ``suffix``."""
        return self.create({**business_body(suffix), **fields})

    def get(self, customer_id: str) -> dict[str, Any]:
        """GET /customers/{id}; the customer."""
        __tracebackhide__ = True
        response = self.client.get(f"/customers/{customer_id}")
        customer: dict[str, Any] = required_json(
            response,
            CUSTOMERS_CLAUSE,
            "GET /customers/{customerId} returns the platform's customer",
            status=200,
        )
        return customer

    def patch(self, customer_id: str, body: Mapping[str, Any]) -> ApiResponse:
        return self.client.patch(f"/customers/{customer_id}", json=dict(body))

    def status(self, customer_id: str) -> Any:
        """The customer's current ``kycStatus`` or ``kybStatus``."""
        customer = self.get(customer_id)
        return customer.get(status_field(customer))

    def settled_status(self, customer_id: str, outcome: Outcome) -> Any:
        """Poll the status until the outcome allows it or is final, within the webhook timeout.

        A decision may be taken after the submission answers; the interface gives no time,
        so the deadline is the profile's ``webhook_timeout``.
        """
        deadline = time.monotonic() + self.profile.webhook_timeout
        pause = 0.05
        while True:
            status = self.status(customer_id)
            settled = outcome.allows_status(status) or status in FINAL_STATUSES
            if settled or time.monotonic() >= deadline:
                return status
            time.sleep(min(pause, max(deadline - time.monotonic(), 0)))
            pause = min(pause * 2, 1.0)

    # -- documents and owners ----------------------------------------------------------------

    def upload(
        self,
        holder: str,
        document_type: str,
        file: DocumentFile,
        *,
        side: str | None = None,
        number: str | None = "X1234567",
        authority: str | None = "Specimen Issuing Office",
        country: str | None = "US",
        extra: Mapping[str, str] | None = None,
    ) -> ApiResponse:
        """POST /documents as multipart/form-data; fields given as None are left out."""
        form = {
            "documentHolder": holder,
            "documentType": document_type,
            "side": side,
            "documentNumber": number,
            "issuingAuthority": authority,
            "country": country,
            **(extra or {}),
        }
        data = {k: v for k, v in form.items() if v is not None}
        return self.client.post("/documents", data=data, files={"file": file.as_multipart()})

    def upload_ok(self, holder: str, document_type: str, file: DocumentFile, **kw: Any) -> Any:
        """Upload a valid document; the stored document."""
        __tracebackhide__ = True
        response = self.upload(holder, document_type, file, **kw)
        return required_json(
            response,
            CUSTOMERS_CLAUSE + " — POST /documents",
            f"a valid {document_type} upload ({file.content_type}) is stored and returned",
            status=(200, 201),
        )

    def add_identity_document(self, holder: str) -> Any:
        """A passport for ``holder`` (one image; a PDF, which no photo check applies to)."""
        return self.upload_ok(holder, "PASSPORT", pdf_document())

    def owner_body(
        self, business_id: str, last_name: str = "Hopper", **info: Any
    ) -> dict[str, Any]:
        personal = {
            "firstName": "Grace",
            "lastName": last_name,
            "birthDate": "1980-12-09",
            "nationality": "US",
            "address": {
                "line1": "2 Specimen Street",
                "city": "Springfield",
                "postalCode": "94016",
                "country": "US",
            },
            "idType": "SSN",
            "identifier": "123-45-6780",
            "countryOfIssuance": "US",
            **info,
        }
        return {"customerId": business_id, "roles": ["DIRECTOR"], "ownershipPercentage": 100,
                "personalInfo": personal}  # fmt: skip

    def add_owner(self, business_id: str, **info: Any) -> dict[str, Any]:
        """A beneficial owner (a director owning 100%) of a business; the created owner."""
        __tracebackhide__ = True
        response = self.client.post("/beneficial-owners", json=self.owner_body(business_id, **info))
        owner: dict[str, Any] = required_json(
            response,
            CUSTOMERS_CLAUSE + " — POST /beneficial-owners",
            "POST /beneficial-owners with {customerId, roles, ownershipPercentage, personalInfo} "
            "creates the owner of a business customer",
            status=(200, 201),
        )
        return owner

    def business_document_type(self) -> str:
        """The business document type the target asks for (learnt once from RESOLVE_ERRORS)."""
        if self._business_document_type is None:
            probe = self.business("001")
            response = self.submit(probe["id"])
            found = [
                kind
                for error in _errors(response)
                if error.get("resourceId") == probe["id"]
                for kind in error.get("acceptedDocumentTypes") or []
                if isinstance(kind, str) and kind not in IDENTITY_DOCUMENT_TYPES
            ]
            self._business_document_type = found[0] if found else DEFAULT_BUSINESS_DOCUMENT
        return self._business_document_type

    def complete_packet(
        self, customer: Mapping[str, Any], *, owner: bool = True, documents: bool = True
    ) -> None:
        """Supply what §4 Sandbox behaviours lists as a complete packet for the customer.

        Individuals: the KYC fields (sent by PATCH when missing) and an identity document.
        Businesses: a business document and a beneficial owner with an identity document;
        ``owner`` / ``documents`` False leave that part out.
        """
        customer_id = customer["id"]
        if customer.get("customerType") == "BUSINESS":
            if documents:
                self.upload_ok(
                    customer_id,
                    self.business_document_type(),
                    pdf_document(),
                    number=None,
                    authority=None,
                )
            if owner:
                added = self.add_owner(customer_id)
                self.add_identity_document(added["id"])
            return
        fields = {k: v for k, v in individual_body().items() if k not in customer}
        fields.pop("platformCustomerId", None)
        fields.pop("fullName", None)
        if fields:
            response = self.patch(customer_id, fields)
            check(
                200 <= response.status < 300,  # §4 gives PATCH no status: any 2xx with the resource
                CUSTOMERS_CLAUSE,
                "PATCH /customers/{customerId} with valid fields updates the customer",
                expected="2xx",
                observed=(response.status, response.content[:300]),
                exchange=response.exchange,
            )
        if documents:
            self.add_identity_document(customer_id)

    # -- verification ------------------------------------------------------------------------

    def submit(self, customer_id: str) -> ApiResponse:
        """POST /verifications {customerId}."""
        return self.client.post("/verifications", json={"customerId": customer_id})

    def latest_verification(self, customer_id: str) -> ApiResponse:
        """GET /verifications?customerId=<id>."""
        return self.client.get("/verifications", params={"customerId": customer_id})

    # -- kyc link and contact verification ---------------------------------------------------

    @staticmethod
    def redirect_uri() -> str:
        return f"https://platform.example.com/onboarding/done?session={uuid.uuid4().hex}"

    def kyc_link(
        self, customer_id: str, redirect_uri: str | None = None, *, key: str | None = None
    ) -> ApiResponse:
        """POST /customers/{id}/kyc-link {redirectUri}, with an Idempotency-Key when given."""
        headers = {"Idempotency-Key": key} if key else None
        body = {"redirectUri": redirect_uri or self.redirect_uri()}
        return self.client.post(f"/customers/{customer_id}/kyc-link", json=body, headers=headers)

    def send_code(self, customer_id: str, channel: str) -> ApiResponse:
        """POST /customers/{id}/verify-email or /verify-phone (no body)."""
        return self.client.post(f"/customers/{customer_id}{CHANNELS[channel]}")

    def confirm(self, customer_id: str, channel: str, code: str) -> ApiResponse:
        """POST /customers/{id}/verify-<channel>/confirm {code}."""
        path = f"/customers/{customer_id}{CHANNELS[channel]}/confirm"
        return self.client.post(path, json={"code": code})

    def contact_candidates(self) -> tuple[tuple[str, dict[str, Any]], ...]:
        """(description, body) of customers that may or may not need contact verification."""
        return tuple(
            (label, {**body, "platformCustomerId": f"conformance-{uuid.uuid4()}"})
            for label, body in _CONTACT_CANDIDATES
        )

    def customer_needing(self, channel: str | None = None) -> dict[str, Any]:
        """A new customer with ``channel`` (any channel when None) ``PENDING`` verification."""
        tried = []
        for label, body in self.contact_candidates():
            customer = self.create(body)
            states = contact_channels(customer)
            wanted = [channel] if channel else list(states)
            if any(states.get(c) == "PENDING" for c in wanted):
                return customer
            tried.append(label)
        pytest.skip(
            "no customer the suite creates needs contact verification on "
            f"{channel or 'any channel'} (tried {'; '.join(tried)}); which channels the provider "
            "requires is its own choice (§2 Customer: contactVerification)"
        )

    def customer_not_needing(self, channel: str) -> dict[str, Any]:
        """A new customer whose ``contactVerification`` does not list ``channel``."""
        tried = []
        for label, body in self.contact_candidates():
            customer = self.create(body)
            if channel not in contact_channels(customer):
                return customer
            tried.append(label)
        pytest.skip(
            f"every customer the suite creates needs contact verification on {channel} "
            f"(tried {'; '.join(tried)})"
        )


def _errors(response: ApiResponse) -> list[dict[str, Any]]:
    body = response.json if response.is_json else None
    errors = body.get("errors") if isinstance(body, dict) else None
    return [e for e in errors or [] if isinstance(e, dict)]


def wrong_code(code: str) -> str:
    """A code that differs from ``code`` but has its shape."""
    if code and code[-1].isdigit():
        return code[:-1] + str((int(code[-1]) + 1) % 10)
    return code + "x"
