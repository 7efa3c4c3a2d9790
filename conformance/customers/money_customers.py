"""How the suite gets customers who may move money (§3 Customer verification, §4 Sandbox
behaviours): APPROVED customers with end-user terms accepted, PENDING ones, and the
currencies the platform supports.

An individual without a scenario suffix is the cheapest approved customer; the interface
lets such a name resolve either way, so a business whose registration number ends in 004
(auto-approved once complete) is the fallback.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import pytest

from conformance.contract import clauses
from conformance.contract.failures import check
from conformance.customers.agreement_terms import end_user_terms, supported_agreements
from conformance.customers.bodies import business_body, consent_entry
from conformance.customers.onboarding import Onboarding, status_field
from conformance.customers.verification_outcomes import BUSINESS, COMPLETE, INDIVIDUAL, expected
from conformance.exchange.client import TargetClient
from conformance.ground.profile import TargetProfile

__all__ = ["MoneyCustomers"]


class MoneyCustomers:
    """Creates customers who may move money, for one test session."""

    def __init__(self, client: TargetClient, profile: TargetProfile) -> None:
        self.client = client
        self.profile = profile
        self.onboarding = Onboarding(client, profile)
        # the consent entry for the current end-user terms, read once (GET /config)
        self._terms: dict[str, Any] | None = None

    def terms_consent(self) -> dict[str, Any]:
        """An agreementConsents entry accepting the current end-user terms."""
        if self._terms is None:
            terms = end_user_terms(supported_agreements(self.client))
            self._terms = consent_entry(terms.type, terms.version)
        return dict(self._terms)

    def supported_currencies(self) -> list[str]:
        """The platform's ``supportedCurrencies`` codes (GET /config)."""
        entries = self.client.get("/config").json.get("supportedCurrencies") or []
        return [e["currencyCode"] for e in entries if isinstance(e, Mapping)]

    def currencies(self, wanted: Sequence[str] = ("USD", "EUR")) -> list[str]:
        """The ``wanted`` codes the platform supports, in order; skips when none is."""
        supported = set(self.supported_currencies())
        chosen = [c for c in wanted if c in supported]
        if not chosen:
            pytest.skip(
                f"the platform's supportedCurrencies ({sorted(supported)}) include none of "
                f"{list(wanted)}, the currencies the suite moves money in"
            )
        return chosen

    def customer_fields(self, currencies: Sequence[str], *, terms: bool) -> dict[str, Any]:
        """Creation fields for a customer in ``currencies``, accepting the end-user terms
        when ``terms``."""
        fields: dict[str, Any] = {"currencies": list(currencies)}
        if terms:
            fields["agreementConsents"] = [self.terms_consent()]
        return fields

    def approved_customer(
        self,
        currencies: Sequence[str] = ("USD",),
        *,
        terms: bool = True,
        extra: Mapping[str, Any] | None = None,
        business_info: Mapping[str, Any] | None = None,
    ) -> dict[str, Any]:
        """A new APPROVED customer transacting in ``currencies``, end-user terms accepted,
        with the ``extra`` fields (e.g. an address) and, should it be a business, these
        ``business_info`` entries.

        An individual without a scenario suffix first (cheapest); the interface lets such a
        name resolve either way, so a business whose registration number ends in 004 (which
        §4 Sandbox behaviours auto-approves once complete) is the fallback.
        """
        __tracebackhide__ = True
        fields = {**self.customer_fields(currencies, terms=terms), **(extra or {})}
        individual = self.onboarding.individual("", **fields)
        if self.decide(individual, "") == "APPROVED":
            return {**individual, "kycStatus": "APPROVED"}
        if business_info:
            info = business_body("004")["businessInfo"]
            fields["businessInfo"] = {**info, **business_info}
        business = self.onboarding.business("004", **fields)
        status = self.decide(business, "004")
        check(
            status == "APPROVED",
            clauses.SANDBOX_BEHAVIOURS,
            "a business whose registration number does not end in 001, 002 or 003 is "
            "approved once its submission is complete",
            expected="APPROVED",
            observed=status,
        )
        return {**business, "kybStatus": "APPROVED"}

    def decide(self, customer: dict[str, Any], suffix: str = "004") -> Any:
        """Submit a complete packet unless the customer is already final; its status then.

        ``suffix`` is the customer's sandbox suffix (last 3 characters of ``fullName`` or of
        ``businessInfo.registrationNumber``; ``""`` for none).
        """
        kind = BUSINESS if customer.get("customerType") == "BUSINESS" else INDIVIDUAL
        status = customer.get(status_field(customer))
        if status in ("APPROVED", "REJECTED"):
            return status
        self.onboarding.complete_packet(customer)
        response = self.onboarding.submit(customer["id"])
        check(
            response.status in (200, 201),
            clauses.CUSTOMERS_ENDPOINTS + " — POST /verifications",
            "POST /verifications {customerId} with a complete packet returns a Verification",
            expected="200 or 201",
            observed=(response.status, response.content[:300]),
            exchange=response.exchange,
        )
        outcome = expected(kind, self.profile, COMPLETE, suffix)
        return self.onboarding.settled_status(customer["id"], outcome)

    def pending_customer(self, currencies: Sequence[str] = ("USD",)) -> dict[str, Any]:
        """A new individual whose kycStatus is PENDING (suffix 001, §4 Sandbox behaviours)."""
        __tracebackhide__ = True
        customer = self.onboarding.individual("001", **self.customer_fields(currencies, terms=True))
        if customer.get("kycStatus") != "PENDING":
            self.decide(customer, "001")
        status = self.onboarding.status(customer["id"])
        check(
            status == "PENDING",
            clauses.SANDBOX_BEHAVIOURS,
            "suffix 001 leaves an individual PENDING: at creation where suffixes resolve at "
            "creation, after a complete packet otherwise",
            expected="PENDING",
            observed=status,
        )
        return {**customer, "kycStatus": status}
