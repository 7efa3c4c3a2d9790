"""§2 Quote — a just-in-time quote (source ``REALTIME_FUNDING``) carries
``paymentInstructions``: entries with ``accountOrWalletInfo`` naming its ``accountType``
and the ``reference`` the payment must carry (§4 Quotes rule 2). The entries' shape is
also checked by the quote schema on every response.
"""

from __future__ import annotations

import pytest

from conformance.contract import clauses
from conformance.contract.failures import check
from conformance.payments.transfer_flows import instruction_infos, reference_of

pytestmark = [pytest.mark.resource("Quote"), pytest.mark.writes]

CLAUSE = clauses.QUOTE


@pytest.mark.requirement("FUNDING-JIT-PAYMENT-INSTRUCTIONS")
def test_a_just_in_time_quote_carries_payment_instructions_with_a_reference(transfers):
    jit = transfers.just_in_time("USD")
    infos = instruction_infos(jit.quote)
    check(
        bool(infos) and all(isinstance(i.get("accountType"), str) for i in infos),
        CLAUSE,
        "a just-in-time quote carries paymentInstructions: a non-empty array of entries, each "
        "with accountOrWalletInfo.accountType",
        observed=jit.quote.get("paymentInstructions"),
    )
    check(
        reference_of(jit.quote) is not None,
        CLAUSE,
        "paying the instructions needs their exact reference (§4 Quotes rule 2), so an entry "
        "carries accountOrWalletInfo.reference",
        observed=jit.quote.get("paymentInstructions"),
    )


@pytest.mark.requirement("FUNDING-JIT-PAYMENT-INSTRUCTIONS")
def test_just_in_time_quotes_in_every_supported_currency_carry_instructions(
    money_customers, client, transfers, advisory
):
    """Not only USD: a just-in-time quote funded in each currency the platform supports
    carries its instructions (the quote schema also requires them on every PENDING
    just-in-time quote any test creates). A currency the target does not fund just in
    time (a 4xx at POST /quotes) is an advisory: which currencies it offers is not stated."""
    jit = transfers.just_in_time("USD")
    for currency in money_customers.supported_currencies():
        body = transfers.jit_body(jit.customer_id, currency, jit.destination_id)
        response = client.post("/quotes", json=body)
        if response.status != 201:
            advisory(f"{CLAUSE}: no just-in-time quote funded in {currency} ({response.status})")
            continue
        quote = response.json
        infos = instruction_infos(quote)
        check(
            bool(infos) and all(isinstance(i.get("accountType"), str) for i in infos),
            CLAUSE,
            f"a just-in-time quote funded in {currency} carries paymentInstructions: a non-empty "
            "array of entries, each with accountOrWalletInfo.accountType",
            observed=quote.get("paymentInstructions"),
            exchange=response.exchange,
        )
