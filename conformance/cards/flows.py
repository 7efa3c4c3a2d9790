"""How the suite gets a card and drives its transactions (the ``cards`` fixture).

Card issuing and the card network simulators are not shown (§4), so a card, its
authorizations, clearings, reversals and merchant returns come from adapter hooks. What the
adapter answers is only trusted for the id it names: the suite reads every card transaction
back through the shown ``GET /transactions?cardId=`` (§4 Quotes and transactions) and judges
that. Every answer is untrusted: a malformed one fails the clause it breaks, never with a
Python exception.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from conformance.contract import clauses
from conformance.contract import endpoint_schemas as contract
from conformance.contract.failures import check, fail
from conformance.customers.money_customers import MoneyCustomers
from conformance.exchange.assertions import adapter_record, required_json
from conformance.exchange.client import ApiResponse, TargetClient
from conformance.ground import hookspecs
from conformance.payments.funding import Funding

__all__ = [
    "AUTHORIZE_HOOK",
    "CARD_CLAUSE",
    "CLEAR_HOOK",
    "EXPIRE_HOOK",
    "ISSUE_HOOK",
    "MERCHANT",
    "RETURN_HOOK",
    "REVERSE_HOOK",
    "Card",
    "Cards",
]

# the requirement a card transaction's member breaks when its shape is wrong, where one rule
# states that member alone: direction and the amounts' currency metadata (§2 CardTransaction)
FIELDS_REQUIREMENT = "CARD-TRANSACTION-FIELDS"
CURRENCY_OF_AMOUNTS = ("settledAmount.currency", "refundedAmount.currency")


def _owner_of(path: str) -> str | None:
    """``FIELDS_REQUIREMENT`` for a violation at ``direction`` or in an amount's currency."""
    if path == "direction" or path.startswith(CURRENCY_OF_AMOUNTS):
        return FIELDS_REQUIREMENT
    return None


ISSUE_HOOK = hookspecs.pytest_conformance_issue_card
AUTHORIZE_HOOK = hookspecs.pytest_conformance_simulate_card_authorization
CLEAR_HOOK = hookspecs.pytest_conformance_clear_card_transaction
REVERSE_HOOK = hookspecs.pytest_conformance_reverse_card_authorization
EXPIRE_HOOK = hookspecs.pytest_conformance_expire_card_authorization
RETURN_HOOK = hookspecs.pytest_conformance_card_merchant_return
CARD_CLAUSE = clauses.CARD_TRANSACTION
LIST_CLAUSE = clauses.QUOTES_ENDPOINTS + " — GET /transactions"
CARD_SCHEMA = "card-transaction"
# The merchant the simulated network reports, location included (§2: city and state).
MERCHANT = {"name": "Conformance Corner Shop", "city": "Austin", "state": "TX", "country": "US"}

Call = Callable[..., Any]  # Adapter.call: a hookspecs function with keyword arguments


@dataclass(frozen=True, slots=True)
class Card:
    """An issued card: its record as the adapter answered it, and the funding account."""

    record: dict[str, Any]
    customer_id: str
    account_id: str
    currency: str

    @property
    def id(self) -> str:
        return str(self.record["id"])


def _named(answer: Any, hook: hookspecs.HookSpec, what: str) -> dict[str, Any]:
    """The adapter's answer as an object naming an ``id``, or a failure saying so."""
    __tracebackhide__ = True
    return adapter_record(answer, hook, CARD_CLAUSE, what)


class Cards:
    """Cards and card transactions for one session, through the adapter's hooks."""

    def __init__(
        self,
        client: TargetClient,
        customers: MoneyCustomers,
        funding: Funding,
        call: Call,
        timeout: float,
    ) -> None:
        self.client = client
        self.customers = customers
        self.funding = funding
        self._call = call
        self.timeout = timeout

    def issue(self, funds: int = 100_000, currency: str = "USD") -> Card:
        """A card on a new approved customer's internal account funded with ``funds``."""
        __tracebackhide__ = True
        customer = self.customers.approved_customer([currency])
        account = self.funding.funded_account(customer, currency, funds)
        record = self._call(ISSUE_HOOK, internal_account_id=account["id"])
        card = _named(record, ISSUE_HOOK, "an issued card")
        return Card(card, str(customer["id"]), str(account["id"]), currency)

    def authorize(self, card: Card, amount: int) -> dict[str, Any]:
        """A simulated authorization at :data:`MERCHANT`: the adapter's answer (with an id)."""
        __tracebackhide__ = True
        answer = self._call(
            AUTHORIZE_HOOK,
            card_id=card.id,
            amount=amount,
            currency=card.currency,
            merchant=dict(MERCHANT),
        )
        return _named(answer, AUTHORIZE_HOOK, "a simulated card authorization")

    def clear(self, card: Card, transaction_id: str) -> dict[str, Any]:
        __tracebackhide__ = True
        answer = self._call(CLEAR_HOOK, card_id=card.id, transaction_id=transaction_id)
        return _named(answer, CLEAR_HOOK, "a cleared card transaction")

    def reverse(self, card: Card, transaction_id: str) -> dict[str, Any]:
        __tracebackhide__ = True
        answer = self._call(REVERSE_HOOK, card_id=card.id, transaction_id=transaction_id)
        return _named(answer, REVERSE_HOOK, "a reversed card authorization")

    def expire(self, card: Card, transaction_id: str) -> dict[str, Any]:
        __tracebackhide__ = True
        answer = self._call(EXPIRE_HOOK, card_id=card.id, transaction_id=transaction_id)
        return _named(answer, EXPIRE_HOOK, "an expired card authorization")

    def merchant_return(self, card: Card, transaction_id: str, amount: int) -> dict[str, Any]:
        __tracebackhide__ = True
        answer = self._call(
            RETURN_HOOK, card_id=card.id, transaction_id=transaction_id, amount=amount
        )
        return _named(answer, RETURN_HOOK, "a merchant return")

    def purchase(self, card: Card, amount: int) -> str:
        """An approved authorization cleared in full; the purchase's id."""
        __tracebackhide__ = True
        auth = self.authorize(card, amount)
        self.clear(card, auth["id"])
        return str(auth["id"])

    # -- reading back through the shown endpoint ------------------------------------------

    def listing(self, card_id: str, **params: str) -> ApiResponse:
        """``GET /transactions?cardId=<card_id>`` (plus ``params``), not schema-validated by
        the client: what marks a listed item as a card transaction (its ``type``) is not
        shown, so :meth:`rows` checks every item against the card transaction schema."""
        return self.client.get(
            "/transactions", params={"cardId": card_id, **params}, validate=False
        )

    def rows(self, card_id: str, **params: str) -> list[dict[str, Any]]:
        """The card's transactions as listed, each checked against §2 CardTransaction."""
        __tracebackhide__ = True
        response = self.listing(card_id, **params)
        listed = required_json(
            response,
            LIST_CLAUSE,
            "GET /transactions accepts the cardId filter and lists the card's transactions",
            status=200,
        )
        items = contract.list_items(listed)
        check(
            items is not None,
            LIST_CLAUSE,
            "GET /transactions answers a list",
            observed=response.content[:300],
            exchange=response.exchange,
        )
        registry = self.client.registry
        violations = [
            (index, v) for index, item in enumerate(items or [])
            for v in registry.violations(CARD_SCHEMA, item)
        ]  # fmt: skip
        owners = {_owner_of(v.path) for _, v in violations}
        check(
            not violations,
            CARD_CLAUSE,
            "every transaction listed for a card is a card transaction as §2 states it",
            observed=[f"[{i}]{v.path.lstrip('$')}: {v.message}" for i, v in violations[:8]],
            exchange=response.exchange,
            requirement=owners.pop() if len(owners) == 1 else None,
        )
        return [i for i in items or [] if isinstance(i, dict)]

    def row(self, card: Card, transaction_id: str, settle: str | None = None) -> dict[str, Any]:
        """The card transaction ``transaction_id`` as listed; with ``settle``, wait (up to the
        webhook timeout) for its ``status`` to leave that value."""
        __tracebackhide__ = True
        deadline = time.monotonic() + self.timeout
        while True:
            found = [r for r in self.rows(card.id) if r.get("id") == transaction_id]
            if found and (settle is None or found[0].get("status") != settle):
                return found[0]
            if time.monotonic() >= deadline:
                break
            time.sleep(0.1)
        if found:
            return found[0]
        fail(
            LIST_CLAUSE,
            "GET /transactions?cardId=<card> lists every transaction of the card",
            expected=transaction_id,
            observed=[r.get("id") for r in self.rows(card.id)],
        )
