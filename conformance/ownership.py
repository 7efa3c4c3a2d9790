"""How the suite walks external-account ownership verification (§2 ExternalAccount, §3
External account, §4 ``POST /customers/external-accounts/{id}/challenge`` and
``.../verify``, §6 ``EXTERNAL_ACCOUNT.STATUS_UPDATED``).

The interface leaves open which accounts need ownership verification and the bodies of
both calls: an account number that starts ``PENDING_OWNERSHIP_VERIFICATION`` comes from the
adapter hook ``pytest_conformance_ownership_pending_account_number``, and the ``verify``
body (a valid or a failing proof for the challenge's answer) from
``pytest_conformance_ownership_proof``. The challenge is posted without a body.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from conformance.client import ApiResponse
from conformance.failures import check
from conformance.money import Money
from conformance.resource_events import ResourceEvents
from conformance.sink import Delivery

__all__ = [
    "EVENT",
    "OWNERSHIP_PROOF_HOOK",
    "PENDING",
    "PENDING_NUMBER_HOOK",
    "Ownership",
    "event_status",
]

PENDING_NUMBER_HOOK = "pytest_conformance_ownership_pending_account_number"
OWNERSHIP_PROOF_HOOK = "pytest_conformance_ownership_proof"
PENDING = "PENDING_OWNERSHIP_VERIFICATION"
EVENT = "EXTERNAL_ACCOUNT.STATUS_UPDATED"
ACCOUNTS_CLAUSE = "§4 Accounts"
STATES_CLAUSE = "§3 External account"
BASE = "/customers/external-accounts"

PendingNumber = Callable[[str], str]
Proof = Callable[[dict[str, Any], dict[str, Any], bool], dict[str, Any]]


class Ownership:
    """Creates accounts pending ownership verification and proves (or fails to prove)
    their ownership."""

    def __init__(self, money: Money, pending_number: PendingNumber, proof: Proof) -> None:
        self.money = money
        self._pending_number = pending_number
        self._proof = proof

    def pending_account(self, customer_id: str, currency: str = "USD") -> dict[str, Any]:
        """A new external account in ``PENDING_OWNERSHIP_VERIFICATION``."""
        __tracebackhide__ = True
        number = self._pending_number(currency)
        account = self.money.external_account(customer_id, currency, number=number)
        check(
            account.get("status") == PENDING,
            "§2 Resources and their fields — ExternalAccount",
            "an account registered with the number the adapter names "
            f"({PENDING_NUMBER_HOOK}) starts PENDING_OWNERSHIP_VERIFICATION",
            expected=PENDING,
            observed=account.get("status"),
            hint="the adapter hook promises a number whose account needs ownership verification",
        )
        return account

    def challenge(self, account: dict[str, Any]) -> dict[str, Any]:
        """``POST .../challenge``: what the customer's wallet must answer."""
        __tracebackhide__ = True
        response = self.money.client.post(f"{BASE}/{account['id']}/challenge")
        check(
            200 <= response.status < 300 and isinstance(response.json, dict),
            ACCOUNTS_CLAUSE,
            "POST /customers/external-accounts/{id}/challenge starts ownership verification "
            "of an account PENDING_OWNERSHIP_VERIFICATION",
            expected="2xx with a JSON object",
            observed=(response.status, response.content[:300]),
            exchange=response.exchange,
        )
        body: dict[str, Any] = response.json
        return body

    def prove(self, account: dict[str, Any], *, valid: bool) -> ApiResponse:
        """Challenge, then ``POST .../verify`` with a valid or a failing proof."""
        challenge = self.challenge(account)
        proof = self._proof(account, challenge, valid)
        return self.money.client.post(f"{BASE}/{account['id']}/verify", json=proof)

    def verified(self, response: ApiResponse, *, valid: bool) -> Any:
        """The status the ``verify`` answer reports (None when it carries none)."""
        __tracebackhide__ = True
        outcome = "a valid" if valid else "a failing"
        check(
            200 <= response.status < 300 or not valid,
            ACCOUNTS_CLAUSE,
            f"POST /customers/external-accounts/{{id}}/verify with {outcome} proof completes "
            "the signature check",
            expected="2xx",
            observed=(response.status, response.content[:300]),
            exchange=response.exchange,
        )
        body = response.json if response.is_json else None
        return body.get("status") if isinstance(body, dict) else None

    def status_events(
        self, events: ResourceEvents, account: dict[str, Any], why: str
    ) -> list[Delivery]:
        """The ``EXTERNAL_ACCOUNT.STATUS_UPDATED`` events about the account, once one came."""
        __tracebackhide__ = True
        return events.wait(account["id"], [EVENT], prefix=EVENT, why=why, clause=STATES_CLAUSE)


def event_status(delivery: Delivery) -> Any:
    """The ``data.status`` of an event (the ExternalAccount's new status)."""
    body = delivery.json
    data = body.get("data") if isinstance(body, dict) else None
    return data.get("status") if isinstance(data, dict) else None
