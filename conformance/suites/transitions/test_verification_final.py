"""§3 Customer verification — APPROVED and REJECTED are final.

Any further ``POST /verifications`` leaves the status unchanged, and renaming the customer
(even to a name or number carrying another sandbox suffix) does not re-derive it.
"""

from __future__ import annotations

import pytest

from conformance.contract import clauses
from conformance.contract.failures import check
from conformance.customers.onboarding import status_field
from conformance.customers.verification_checks import a_final_customer
from conformance.exchange.assertions import required_json

pytestmark = [pytest.mark.resource("Customer"), pytest.mark.writes]

CLAUSE = clauses.CUSTOMER_VERIFICATION_STATES
FINAL_CASES = [("INDIVIDUAL", "002"), ("BUSINESS", "002"), ("BUSINESS", "004")]
FINAL_IDS = ["rejected-individual", "rejected-business", "approved-business"]


def renamed(customer, suffix):
    """A PATCH body giving the customer a name (or registration number) ending in ``suffix``."""
    if customer["customerType"] == "BUSINESS":
        info = dict(customer["businessInfo"])
        info["registrationNumber"] = f"REG-RENAMED-{suffix}"
        return {"businessInfo": info}
    return {"fullName": f"Ada Renamed{suffix}"}


@pytest.mark.requirement("VERIFICATION-FINAL-STATUS-UNCHANGED")
@pytest.mark.parametrize(("kind", "suffix"), FINAL_CASES, ids=FINAL_IDS)
def test_a_final_status_survives_another_submission(onboarding, kind, suffix):
    customer = a_final_customer(onboarding, kind, suffix)
    field = status_field(customer)
    response = onboarding.submit(customer["id"])
    after = onboarding.status(customer["id"])
    check(
        after == customer[field],
        CLAUSE,
        f"APPROVED and REJECTED are final: a further POST /verifications leaves {field} unchanged",
        expected=customer[field],
        observed=after,
        exchange=response.exchange,
    )


@pytest.mark.requirement("VERIFICATION-RENAME-NO-REDERIVE")
@pytest.mark.parametrize(("kind", "suffix"), FINAL_CASES, ids=FINAL_IDS)
@pytest.mark.parametrize("new_suffix", ["001", "002", "004"])
def test_renaming_a_final_customer_does_not_re_derive_its_status(
    onboarding, kind, suffix, new_suffix
):
    customer = a_final_customer(onboarding, kind, suffix)
    field = status_field(customer)
    response = onboarding.patch(customer["id"], renamed(customer, new_suffix))
    patched = required_json(
        response,
        clauses.CUSTOMERS_ENDPOINTS,
        "PATCH /customers/{customerId} changes the fields sent and returns the customer",
        status=None,  # §4 gives PATCH no status: any 2xx with the resource
    )
    for where, status in (
        ("in the PATCH response", patched.get(field)),
        ("read back", onboarding.status(customer["id"])),
    ):
        check(
            status == customer[field],
            CLAUSE,
            f"renaming a customer does not re-derive its final {field} ({where})",
            expected=customer[field],
            observed=status,
            exchange=response.exchange,
        )
