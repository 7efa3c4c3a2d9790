"""§4 Accounts — ``POST /customers/external-accounts/{id}/verify`` completes a wallet
signature check synchronously: when the call returns, the account's status is decided.

The bodies are not shown (adapter hooks). The decided status is read from the answer when
it carries one, else from ``EXTERNAL_ACCOUNT.STATUS_UPDATED`` delivered after the call,
whose ``timestamp`` must not be later than the moment the call returned. That event's
payload is not shown either: when no event's status can be read, the event itself stands
for the decision (an advisory says so).
"""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from conformance.accounts.ownership import (
    OWNERSHIP_PROOF_HOOK,
    PENDING_NUMBER_HOOK,
    readable_statuses,
)
from conformance.contract import clauses
from conformance.contract.failures import check
from conformance.contract.markers import needs_adapter_hook

pytestmark = [
    pytest.mark.resource("ExternalAccount"),
    pytest.mark.writes,
    needs_adapter_hook(PENDING_NUMBER_HOOK, OWNERSHIP_PROOF_HOOK),
]

CLAUSE = clauses.ACCOUNTS_ENDPOINTS
CLOCK_SKEW_S = 5.0


@pytest.mark.requirement("EXTERNAL-ACCOUNT-VERIFY-SYNCHRONOUS")
def test_verify_decides_the_ownership_within_the_call(
    money_customers, ownership, resource_events, advisory
):
    customer = money_customers.approved_customer(["USD"])
    account = ownership.pending_account(customer["id"])
    after = resource_events.mark()
    response = ownership.prove(account, valid=True)
    returned = datetime.now(UTC)
    status = ownership.verified(response, valid=True)
    if status is not None:
        check(
            status == "ACTIVE",
            CLAUSE,
            "verify completes the signature check synchronously: its answer shows the account "
            "ACTIVE",
            expected="ACTIVE",
            observed=status,
            exchange=response.exchange,
        )
        return
    events = ownership.status_events(resource_events, account, "a verify call", after=after)
    readable = readable_statuses(events, advisory)
    decided = [e for e, shown in readable if shown == "ACTIVE"] if readable else events
    late = [
        e.summary()
        for e in decided
        if e.timestamp is not None and (e.timestamp - returned).total_seconds() > CLOCK_SKEW_S
    ]
    check(
        decided and not late,
        CLAUSE,
        "verify completes the signature check synchronously: the account became ACTIVE "
        "before the call returned",
        observed=late or [e.summary() for e in events],
    )
