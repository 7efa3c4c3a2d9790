"""§2 BeneficialOwner — customerId, roles, ownershipPercentage and personalInfo, as declared."""

from __future__ import annotations

import pytest

from conformance.contract import clauses
from conformance.customers.checks import assert_reads_back

pytestmark = [pytest.mark.resource("BeneficialOwner"), pytest.mark.writes]

CLAUSE = clauses.BENEFICIAL_OWNER


@pytest.mark.requirement("BENEFICIAL-OWNER-FIELDS", "BENEFICIAL-OWNER-PERSONAL-INFO")
def test_an_owner_comes_back_as_declared(onboarding, client):
    business = onboarding.business("001")
    body = onboarding.owner_body(business["id"], last_name="Lamarr", firstName="Hedy")
    body.update(roles=["DIRECTOR"], ownershipPercentage=40.5)
    response = client.post("/beneficial-owners", json=body)  # the client checks the schema
    assert_reads_back(
        body,
        response.json,
        CLAUSE,
        "a beneficial owner carries customerId, roles, ownershipPercentage and personalInfo "
        "(firstName, lastName, birthDate, nationality, address, idType, identifier, "
        "countryOfIssuance) as declared",
        response.exchange,
    )
