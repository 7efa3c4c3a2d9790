"""§8 Limits and §7 Errors — transaction size and daily volume are enforced with
400 TRANSACTION_SIZE_LIMIT_EXCEEDED and 429 DAILY_VOLUME_LIMIT_EXCEEDED.

The values are not published, so the adapter states them (``pytest_conformance_transaction_
limits``). The interface does not say which request a limit refuses: a refusal at quote
creation or at execution both pass, provided nothing is debited.
"""

from __future__ import annotations

import pytest

from conformance.contract import clauses
from conformance.contract.markers import needs_adapter_hook
from conformance.payments.money_limits import (
    LIMITS_HOOK,
    refused_at_quote_or_execute,
    transaction_limits,
)

pytestmark = [pytest.mark.resource("Transaction"), pytest.mark.writes]

CLAUSE = clauses.LIMITS
CURRENCY = "USD"
# Reaching the daily limit takes daily // size payments; beyond this many the test skips.
MOST_PAYMENTS = 20


@needs_adapter_hook(LIMITS_HOOK)
@pytest.mark.requirement("LIMIT-TRANSACTION-SIZE-400")
def test_a_transaction_above_the_size_limit_is_refused_with_400(funding, quotes, adapter):
    limits = transaction_limits(adapter, CURRENCY)
    wallet = funding.wallet((CURRENCY,), funds=2 * limits.size + 1_000_000)
    corridor = wallet.corridor(CURRENCY, CURRENCY)
    refused_at_quote_or_execute(
        funding,
        quotes,
        wallet.customer_id,
        corridor.source_id,
        corridor.body("SENDING", limits.size + 1),
        status=400,
        code="TRANSACTION_SIZE_LIMIT_EXCEEDED",
        clause=CLAUSE,
        statement=f"a transaction sending more than the size limit ({limits.size} {CURRENCY} "
        "smallest units, from the adapter) is refused with 400 TRANSACTION_SIZE_LIMIT_EXCEEDED",
    )


@needs_adapter_hook(LIMITS_HOOK)
@pytest.mark.requirement("LIMIT-DAILY-VOLUME-429")
def test_volume_above_the_daily_limit_is_refused_with_429(funding, quotes, adapter):
    limits = transaction_limits(adapter, CURRENCY)
    step = min(limits.size, limits.daily)
    payments = limits.daily // step
    if payments > MOST_PAYMENTS:
        pytest.skip(
            f"reaching the daily limit ({limits.daily}) takes {payments} payments of the size "
            f"limit ({limits.size}); the suite makes at most {MOST_PAYMENTS}"
        )
    wallet = funding.wallet((CURRENCY,), funds=limits.daily + limits.size + 1_000_000)
    corridor = wallet.corridor(CURRENCY, CURRENCY)
    for _ in range(payments):  # a new customer: nothing else counts towards its day
        quotes.pay(corridor.source_id, corridor.destination_id, step)
    sent = payments * step
    if limits.daily - sent > step // 2:  # what is left would not be far enough below
        quotes.pay(corridor.source_id, corridor.destination_id, limits.daily - sent)
        sent = limits.daily
    left = limits.daily - sent
    # §8 says neither whether the amount sent or delivered counts, nor how fees round: the
    # probe is a whole size-limit payment (never above the size limit), at least half of it
    # past what is left, so it is past the daily limit counted sent or delivered after any
    # fee or rounding under a quarter of a payment; a 1-unit probe may not even be quotable.
    probe = step
    refused_at_quote_or_execute(
        funding,
        quotes,
        wallet.customer_id,
        corridor.source_id,
        corridor.body("SENDING", probe),
        status=429,
        code="DAILY_VOLUME_LIMIT_EXCEEDED",
        clause=CLAUSE,
        statement=f"once a customer has sent {sent} of a daily limit of {limits.daily} "
        f"{CURRENCY} smallest units (from the adapter; {left} left), {probe} more is refused "
        "with 429 DAILY_VOLUME_LIMIT_EXCEEDED",
    )
