"""§2 Quote — a just-in-time quote (source ``REALTIME_FUNDING``) carries
``paymentInstructions``: entries with ``accountOrWalletInfo`` naming its ``accountType``
and the ``reference`` the payment must carry (§4 Quotes rule 2). The entries' shape is
also checked by the quote schema on every response.
"""

from __future__ import annotations

import pytest

from conformance.failures import check
from conformance.transfer_flows import instruction_infos, reference_of

pytestmark = [pytest.mark.resource("Quote"), pytest.mark.writes]

CLAUSE = "§2 Resources and their fields — Quote"


@pytest.mark.requirement("FUNDING-JIT-PAYMENT-INSTRUCTIONS")
def test_a_just_in_time_quote_carries_payment_instructions_with_a_reference(transfers, config_lock):
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
