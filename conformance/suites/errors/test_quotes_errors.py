"""§4 Customers and verification, §7 Errors — END_USER_TERMS_NOT_ACCEPTED: on an unregulated
platform a quote for a customer without end-user terms acceptance on file fails.

On regulated platforms the rule does not apply (the interface scopes it to unregulated
platforms); what such a platform answers is recorded, never failed.
"""

from __future__ import annotations

import pytest

from conformance.contract import clauses
from conformance.contract.failures import check
from conformance.exchange.assertions import error_code, has_code
from conformance.payments.quote_bodies import quote_body

pytestmark = [pytest.mark.resource("Quote"), pytest.mark.writes]

CLAUSE = clauses.CUSTOMERS_ENDPOINTS
CODE = "END_USER_TERMS_NOT_ACCEPTED"


@pytest.mark.requirement("END-USER-TERMS-NOT-ACCEPTED")
def test_a_quote_before_end_user_terms_are_accepted_fails_on_unregulated_platforms(
    money_customers, external_accounts, funding, quotes, profile, advisory
):
    customer = money_customers.approved_customer(["USD"], terms=False)
    source = funding.active_account(customer["id"], "USD")
    destination = external_accounts.external_account(customer["id"])
    body = quote_body(source["id"], destination["id"])
    refused = quotes.create_quote(body)
    if profile.regulated:
        advisory(
            f"{CLAUSE}: on a regulated platform a quote for a customer without end-user terms "
            f"answered {refused.status} {error_code(refused) or ''}".rstrip()
        )
        return
    check(
        400 <= refused.status < 500 and has_code(refused, CODE),
        clauses.ERRORS,
        "until end-user terms acceptance is on file, quotes fail with END_USER_TERMS_NOT_ACCEPTED "
        "(unregulated platforms)",
        expected=f"a 4xx with code {CODE}",
        observed=(refused.status, error_code(refused) or refused.content[:200]),
        exchange=refused.exchange,
    )
    accepted = money_customers.onboarding.patch(
        customer["id"], {"agreementConsents": [money_customers.terms_consent()]}
    )
    check(
        200 <= accepted.status < 300,  # §4 gives PATCH no status: any 2xx with the resource
        CLAUSE,
        "PATCH /customers/{customerId} with agreementConsents records the acceptance",
        expected="2xx",
        observed=(accepted.status, accepted.content[:300]),
        exchange=accepted.exchange,
    )
    quotes.quote(body)  # once accepted, the same request is quoted
