"""§6 Events — ``EXTERNAL_ACCOUNT.STATUS_UPDATED`` (the ownership-verification lifecycle) is
delivered as a signed envelope ``{id: Webhook:<uuid>, type, timestamp, data: object}``.

The payload of events other than transaction and test events is not shown: the envelope
schema is all ``data`` is held to, and an event delivered after the verify call counts when
its ``data`` names or mentions the account (``conformance.accounts.ownership``).
"""

from __future__ import annotations

import pytest

from conformance.accounts.ownership import EVENT, OWNERSHIP_PROOF_HOOK, PENDING_NUMBER_HOOK
from conformance.contract.markers import needs_adapter_hook

pytestmark = [
    pytest.mark.resource("ExternalAccount"),
    pytest.mark.writes,
    needs_adapter_hook(PENDING_NUMBER_HOOK, OWNERSHIP_PROOF_HOOK),
]


@pytest.mark.requirement(
    "EXTERNAL-ACCOUNT-VERIFIED-ACTIVE", "WEBHOOK-ENVELOPE", "WEBHOOK-SIGNATURE"
)
def test_ownership_events_are_signed_envelopes(money_customers, ownership, resource_events):
    customer = money_customers.approved_customer(["USD"])
    account = ownership.pending_account(customer["id"])
    after = resource_events.mark()
    ownership.verified(ownership.prove(account, valid=True), valid=True)
    events = ownership.status_events(
        resource_events, account, "successful verification", after=after
    )
    resource_events.check(
        events,
        [EVENT],
        f"{EVENT} is the envelope {{id: Webhook:<uuid>, type, timestamp, data}} with data an "
        "object",
    )
