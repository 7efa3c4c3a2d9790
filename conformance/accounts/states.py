"""How the suite reaches and checks the internal-account states after provisioning (§3
Internal account): ``FROZEN`` on a compliance or fraud signal, ``CLOSED`` when the customer
closes the account, ``FAILED`` when provisioning cannot create it.

The interface shows none of these triggers, so they come from the adapter hooks
``pytest_conformance_freeze_internal_account``, ``pytest_conformance_close_internal_account``
and ``pytest_conformance_fail_account_provisioning``; a test whose hook is missing skips
naming it. "Cannot send or receive" is checked by what moves, not by how the refusal is
worded (the error status and code are not shown): any refusal at ``POST /quotes``, at
``POST /quotes/{id}/execute`` or at the funding endpoint passes as long as no balance
changes and no transfer completes; an accepted request that moves money fails.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from conformance.contract import clauses
from conformance.contract.failures import check
from conformance.exchange.client import ApiResponse
from conformance.ground import hookspecs
from conformance.ground.hookspecs import HookCaller, HookSpec
from conformance.payments.funding import Balances, Funding
from conformance.payments.quote_bodies import quote_body
from conformance.payments.quotes import Quotes
from conformance.payments.transaction_history import TransactionHistory

__all__ = [
    "CLAUSE",
    "CLOSE_HOOK",
    "FAIL_PROVISIONING_HOOK",
    "FREEZE_HOOK",
    "INACTIVE",
    "Attempt",
    "attempt_payment",
    "change_state",
    "expect_nothing_moved",
    "expect_status",
]

CLAUSE = clauses.INTERNAL_ACCOUNT_STATES
NO_MOVEMENT_REQUIREMENT = (
    "INTERNAL-ACCOUNT-INACTIVE-NO-MOVEMENT"  # what every check of movement holds
)
FREEZE_HOOK = hookspecs.pytest_conformance_freeze_internal_account
CLOSE_HOOK = hookspecs.pytest_conformance_close_internal_account
FAIL_PROVISIONING_HOOK = hookspecs.pytest_conformance_fail_account_provisioning
INACTIVE = ("PENDING", "CLOSED", "FROZEN", "FAILED")


def change_state(adapter: HookCaller, hook: HookSpec, account_id: str) -> None:
    """Have the target freeze, close or fail the account through the adapter ``hook``."""
    adapter.call(hook, account_id=account_id)


def expect_status(
    funding: Funding,
    customer_id: str,
    account_id: str,
    status: str,
    why: str,
    *,
    requirement: str | None = None,
) -> None:
    """The account reads back ``status`` in the customer's list (else ``requirement``, the
    transition's, fails)."""
    __tracebackhide__ = True
    observed = funding.account(customer_id, account_id).get("status")
    check(
        observed == status,
        CLAUSE,
        why,
        expected=status,
        observed=observed,
        requirement=requirement,
    )


@dataclass(frozen=True, slots=True)
class Attempt:
    """A transfer the suite tried: the quote's answer, and the execute's when it was made."""

    quoted: ApiResponse
    executed: ApiResponse | None

    @property
    def accepted(self) -> bool:
        """Both the quote and its execution were answered with a 2xx."""
        ok = 200 <= self.quoted.status < 300
        return ok and self.executed is not None and 200 <= self.executed.status < 300

    @property
    def transaction_id(self) -> str | None:
        body = self.quoted.json if 200 <= self.quoted.status < 300 else None
        value = body.get("transactionId") if isinstance(body, Mapping) else None
        return str(value) if value else None

    def answers(self) -> dict[str, Any]:
        """What the target answered, for failure messages."""
        executed = None if self.executed is None else self.executed.status
        return {"POST /quotes": self.quoted.status, "execute": executed}


def attempt_payment(
    quotes: Quotes, source_id: str, destination_id: str, amount: int = 1_000
) -> Attempt:
    """Quote a transfer and, when the quote is created, execute it."""
    quoted = quotes.create_quote(quote_body(source_id, destination_id, amount=amount))
    if not 200 <= quoted.status < 300 or not isinstance(quoted.json, Mapping):
        return Attempt(quoted, None)
    return Attempt(quoted, quotes.execute(str(quoted.json.get("id"))))


def expect_nothing_moved(
    funding: Funding,
    history: TransactionHistory,
    customer_id: str,
    before: Mapping[str, Balances],
    statement: str,
    attempt: Attempt | None = None,
    answered: ApiResponse | None = None,
) -> None:
    """Every account in ``before`` keeps both balances, and the attempted transfer (if
    any) did not complete; ``statement`` says what the clause forbids."""
    __tracebackhide__ = True
    after = {a: funding.account_balances(customer_id, a) for a in before}
    exchange = answered.exchange if answered is not None else None
    if attempt is not None:
        exchange = (attempt.executed or attempt.quoted).exchange
    observed: dict[str, Any] = {"balances after": after}
    if attempt is not None:
        observed["answers"] = attempt.answers()
    if answered is not None:
        observed["answer"] = answered.status
    check(
        after == dict(before),
        CLAUSE,
        statement,
        expected=dict(before),
        observed=observed,
        exchange=exchange,
        requirement=NO_MOVEMENT_REQUIREMENT,
    )
    if attempt is None or not attempt.accepted or attempt.transaction_id is None:
        return
    transaction = history.transaction(customer_id, attempt.transaction_id)
    status = None if transaction is None else transaction.get("status")
    check(
        status != "COMPLETED",
        CLAUSE,
        statement + ": the transfer does not complete",
        expected="not COMPLETED",
        observed={"transaction status": status, **observed},
        exchange=exchange,
        requirement=NO_MOVEMENT_REQUIREMENT,
    )
