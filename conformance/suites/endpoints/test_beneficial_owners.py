"""§4 Customers and verification — POST /beneficial-owners."""

from __future__ import annotations

import re

import pytest

from conformance.contract import clauses
from conformance.contract.failures import check

pytestmark = [pytest.mark.resource("BeneficialOwner"), pytest.mark.writes]

CLAUSE = clauses.CUSTOMERS_ENDPOINTS + " — POST /beneficial-owners"
UUID = r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}"


@pytest.mark.requirement("BENEFICIAL-OWNER-CREATE", "COMMON-ID-FORMAT")
def test_an_owner_of_a_business_is_created(onboarding):
    business = onboarding.business("001")
    owner = onboarding.add_owner(business["id"])  # fails naming the clause unless 200/201
    check(
        re.fullmatch(rf"BeneficialOwner:{UUID}", str(owner.get("id"))),
        clauses.CONVENTIONS,
        "record identifiers have the form BeneficialOwner:<uuid>",
        observed=owner.get("id"),
    )
    check(
        owner.get("customerId") == business["id"],
        CLAUSE,
        "the created owner belongs to the business customer it was declared for",
        expected=business["id"],
        observed=owner.get("customerId"),
    )
