"""How the suite reaches what the interface enforces but does not show how to trigger:
the transaction size and daily volume limits (§8 Limits, §7 Errors), a quoted rate refused
at execution (§3 Quote and transaction) and a payout held for compliance review (§2
Transaction ``pendingReason``).

The values and triggers come from the adapter hooks ``pytest_conformance_transaction_limits``,
``pytest_conformance_refuse_quote_rate`` and ``pytest_conformance_held_account_number``; a
test whose hook is missing skips naming it. Where the interface does not say at which
request a limit bites, a refusal at ``POST /quotes`` or at ``POST /quotes/{id}/execute``
both pass, as long as nothing is debited.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import pytest

from conformance.contract import clauses
from conformance.contract.failures import check
from conformance.exchange import assertions
from conformance.exchange.client import ApiResponse
from conformance.ground import hookspecs
from conformance.ground.hookspecs import HookCaller
from conformance.payments.funding import Funding
from conformance.payments.quotes import Quotes

__all__ = [
    "HELD_ACCOUNT_HOOK",
    "LIMITS_HOOK",
    "REFUSE_RATE_HOOK",
    "Limits",
    "error_code",
    "held_account_number",
    "is_refusal",
    "refuse_rate",
    "refused_at_quote_or_execute",
    "transaction_limits",
]

LIMITS_HOOK = hookspecs.pytest_conformance_transaction_limits
REFUSE_RATE_HOOK = hookspecs.pytest_conformance_refuse_quote_rate
HELD_ACCOUNT_HOOK = hookspecs.pytest_conformance_held_account_number
ERRORS_CLAUSE = clauses.ERRORS


@dataclass(frozen=True, slots=True)
class Limits:
    """The target's limits in one currency's smallest unit, as its adapter states them."""

    size: int  # the largest totalSendingAmount of one transaction
    daily: int  # the largest sum of sending amounts one customer executes in a UTC day


def transaction_limits(adapter: HookCaller, currency: str) -> Limits:
    """The limits from ``pytest_conformance_transaction_limits``; a malformed answer is a
    usage error of the adapter, not a failure of the target."""
    answer = adapter.call(LIMITS_HOOK, currency=currency)
    values = [answer.get(k) if isinstance(answer, Mapping) else None for k in ("size", "daily")]
    if not all(isinstance(v, int) and not isinstance(v, bool) and v > 0 for v in values):
        raise pytest.UsageError(
            f"adapter hook {LIMITS_HOOK.__name__}(currency={currency!r}) returned {answer!r};"
            " expected "
            '{"size": <positive int>, "daily": <positive int>} in the smallest unit'
        )
    size, daily = values
    assert isinstance(size, int) and isinstance(daily, int)
    return Limits(size, daily)


def refuse_rate(adapter: HookCaller, quote_id: str) -> None:
    """Have the target refuse the quote's rate at its next execute (adapter hook)."""
    adapter.call(REFUSE_RATE_HOOK, quote_id=quote_id)


def held_account_number(adapter: HookCaller, currency: str) -> str:
    """An external account number whose payouts are held for compliance review."""
    return str(adapter.call(HELD_ACCOUNT_HOOK, currency=currency))


error_code = assertions.error_code  # the code answered, for reports (§7: any member)


def is_refusal(response: ApiResponse, status: int | None, code: str) -> bool:
    """Whether the answer is an error with ``code`` (and ``status``, when the interface
    gives one)."""
    status_ok = response.status == status if status is not None else response.status >= 400
    return status_ok and assertions.has_code(response, code)


def refused_at_quote_or_execute(
    funding: Funding,
    quotes: Quotes,
    customer_id: str,
    source_id: str,
    body: Mapping[str, Any],
    *,
    status: int,
    code: str,
    clause: str,
    statement: str,
) -> None:
    """``body`` must be refused with ``status`` and ``code``, either when quoted or when the
    quote is executed; either way the source keeps its balances."""
    __tracebackhide__ = True
    before = funding.account_balances(customer_id, source_id)
    response = quotes.create_quote(body)
    expected = f"{status} {code}, at POST /quotes or at POST /quotes/{{quoteId}}/execute"
    if not is_refusal(response, status, code):
        check(
            response.status in (200, 201),
            clause,
            statement,
            expected=expected,
            observed=(response.status, error_code(response) or response.content[:200]),
            exchange=response.exchange,
        )
        response = quotes.execute(response.json["id"])
        check(
            is_refusal(response, status, code),
            clause,
            statement,
            expected=expected,
            observed=(response.status, error_code(response) or response.content[:200]),
            exchange=response.exchange,
            hint="the quote was created, so its execution must be refused",
        )
    after = funding.account_balances(customer_id, source_id)
    check(
        after == before,
        ERRORS_CLAUSE,
        f"a request refused with {code} moves no money: the source keeps its balances",
        expected=before,
        observed=after,
    )
