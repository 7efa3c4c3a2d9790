"""How the suite walks external-account ownership verification (§2 ExternalAccount, §3
External account, §4 ``POST /customers/external-accounts/{id}/challenge`` and
``.../verify``, §6 ``EXTERNAL_ACCOUNT.STATUS_UPDATED``).

The interface leaves open which accounts need ownership verification and the bodies of
both calls: an account number that starts ``PENDING_OWNERSHIP_VERIFICATION`` comes from the
adapter hook ``pytest_conformance_ownership_pending_account_number``, and the ``verify``
body (a valid or a failing proof for the challenge's answer) from
``pytest_conformance_ownership_proof``. The challenge is posted without a body.

The payload of ``EXTERNAL_ACCOUNT.STATUS_UPDATED`` is not shown (§6 Events), so the suite
holds it to the envelope only: an event delivered after the trigger is about the account
when its ``data`` names the account (``data.id``, ``data.externalAccountId``,
``data.accountId``, ``data.externalAccount.id``, ``data.account.id``) or mentions its id in
any string; its new status is read from ``data.newStatus``, ``data.status`` or the nested
account's ``status`` (only ExternalAccount statuses count). A status that can be read must
agree with the change; one that cannot is an advisory.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from conformance.contract import clauses
from conformance.contract.failures import check
from conformance.exchange.assertions import required_json
from conformance.exchange.client import ApiResponse
from conformance.ground import hookspecs
from conformance.payments.external_accounts import ExternalAccounts
from conformance.webhooks.event_checks import event_data, mentions_anywhere, names_resource
from conformance.webhooks.resource_events import ResourceEvents
from conformance.webhooks.sink import Delivery

__all__ = [
    "EVENT",
    "OWNERSHIP_PROOF_HOOK",
    "PENDING",
    "PENDING_NUMBER_HOOK",
    "STATUSES",
    "Ownership",
    "check_new_status",
    "event_status",
    "is_about",
    "readable_statuses",
]

PENDING_NUMBER_HOOK = hookspecs.pytest_conformance_ownership_pending_account_number
OWNERSHIP_PROOF_HOOK = hookspecs.pytest_conformance_ownership_proof
PENDING = "PENDING_OWNERSHIP_VERIFICATION"
EVENT = "EXTERNAL_ACCOUNT.STATUS_UPDATED"
ACCOUNTS_CLAUSE = clauses.ACCOUNTS_ENDPOINTS
STATES_CLAUSE = clauses.EXTERNAL_ACCOUNT_STATES
BASE = "/customers/external-accounts"
STATUSES = ("ACTIVE", PENDING, "UNVERIFIED")  # §2 ExternalAccount status
ACCOUNT_KEYS = ("externalAccountId", "accountId")  # data.<key> naming the account
ACCOUNT_OBJECTS = ("externalAccount", "account")  # data.<name> being the account
STATUS_KEYS = ("newStatus", "status")  # where data carries the new status
# the requirement stating the event of each outcome (a wait for it that runs out is charged
# there): the type alone does not tell them apart, so the words of each wait name the outcome
OUTCOME_REQUIREMENTS = {True: "EXTERNAL-ACCOUNT-VERIFIED-ACTIVE",
                        False: "EXTERNAL-ACCOUNT-FAILED-UNVERIFIED"}  # fmt: skip

PendingNumber = Callable[[str], str]
Proof = Callable[[dict[str, Any], dict[str, Any], bool], dict[str, Any]]


class Ownership:
    """Creates accounts pending ownership verification and proves (or fails to prove)
    their ownership."""

    def __init__(
        self, external_accounts: ExternalAccounts, pending_number: PendingNumber, proof: Proof
    ) -> None:
        self.external_accounts = external_accounts
        self.client = external_accounts.client
        self._pending_number = pending_number
        self._proof = proof

    def pending_account(self, customer_id: str, currency: str = "USD") -> dict[str, Any]:
        """A new external account in ``PENDING_OWNERSHIP_VERIFICATION``."""
        __tracebackhide__ = True
        number = self._pending_number(currency)
        account = self.external_accounts.external_account(customer_id, currency, number=number)
        check(
            account.get("status") == PENDING,
            clauses.EXTERNAL_ACCOUNT,
            "an account registered with the number the adapter names "
            f"({PENDING_NUMBER_HOOK.__name__}) starts PENDING_OWNERSHIP_VERIFICATION",
            expected=PENDING,
            observed=account.get("status"),
            hint="the adapter hook promises a number whose account needs ownership verification",
        )
        return account

    def challenge(self, account: dict[str, Any]) -> dict[str, Any]:
        """``POST .../challenge``: what the customer's wallet must answer."""
        __tracebackhide__ = True
        response = self.client.post(f"{BASE}/{account['id']}/challenge")
        statement = (
            "POST /customers/external-accounts/{id}/challenge starts ownership verification "
            "of an account PENDING_OWNERSHIP_VERIFICATION"
        )
        body = required_json(response, ACCOUNTS_CLAUSE, statement)
        check(
            isinstance(body, dict),
            ACCOUNTS_CLAUSE,
            statement,
            expected="a JSON object",
            observed=response.content[:300],
            exchange=response.exchange,
        )
        challenge: dict[str, Any] = body
        return challenge

    def prove(self, account: dict[str, Any], *, valid: bool) -> ApiResponse:
        """Challenge, then ``POST .../verify`` with a valid or a failing proof."""
        challenge = self.challenge(account)
        proof = self._proof(account, challenge, valid)
        return self.client.post(f"{BASE}/{account['id']}/verify", json=proof)

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
        status = body.get("status") if isinstance(body, dict) else None
        return status if status in STATUSES else None  # the answer's body is not shown

    def status_events(
        self,
        events: ResourceEvents,
        account: dict[str, Any],
        why: str,
        *,
        after: int,
        valid: bool = True,
    ) -> list[Delivery]:
        """The ``EXTERNAL_ACCOUNT.STATUS_UPDATED`` events about the account delivered after
        ``after`` (a mark taken before the trigger), once one came; ``valid``: whether the
        proof that changed it was valid (its event is another requirement's)."""
        __tracebackhide__ = True
        account_id = account["id"]
        outcome = "succeeded" if valid else "failed"
        return events.wait(
            account_id,
            [EVENT],
            prefix=EVENT,
            why=why,
            clause=STATES_CLAUSE,
            about=f"an external account whose ownership verification {outcome}",
            requirement=OUTCOME_REQUIREMENTS[valid],
            relates=lambda delivery: is_about(delivery, account_id),
            after=after,
            hint="check that events reach the configured webhookEndpoint and that data names "
            "the account (data.id, data.externalAccountId, data.accountId, a nested "
            "externalAccount or account) or mentions its id",
        )


def is_about(delivery: Delivery, account_id: str) -> bool:
    """Whether an event's ``data`` names the account or mentions its id anywhere."""
    return names_resource(delivery, account_id, ACCOUNT_KEYS, ACCOUNT_OBJECTS) or mentions_anywhere(
        delivery, account_id
    )


def event_status(delivery: Delivery) -> str | None:
    """The new status an event carries, or None when it can't be read: ``data.newStatus``,
    ``data.status``, then the nested account's ``status``; only ExternalAccount statuses
    count (the payload is not shown)."""
    data = event_data(delivery)
    if not isinstance(data, dict):
        return None
    places = [data, *(data.get(name) for name in ACCOUNT_OBJECTS)]
    for place in places:
        if not isinstance(place, dict):
            continue
        for key in STATUS_KEYS:
            value = place.get(key)
            if isinstance(value, str) and value in STATUSES:
                return value
    return None


def readable_statuses(
    changed: Sequence[Delivery], advisory: Callable[[str], None]
) -> list[tuple[Delivery, str]]:
    """The events whose new status can be read, with it; when none can, an advisory (the
    payload is not shown, so that is no failure)."""
    pairs = [(d, status) for d in changed if (status := event_status(d)) is not None]
    if changed and not pairs:
        advisory(
            f"the payload of {EVENT} is not shown and the new status could not be read from "
            "data.newStatus, data.status or a nested externalAccount/account status; only "
            "the event's arrival was checked: " + ", ".join(d.summary() for d in changed)
        )
    return pairs


def check_new_status(
    changed: Sequence[Delivery], expected: str, why: str, advisory: Callable[[str], None]
) -> None:
    """The events a change fired show the account ``expected`` wherever their status can be
    read: none shows another outcome, and the latest by timestamp shows ``expected``."""
    __tracebackhide__ = True
    pairs = readable_statuses(changed, advisory)
    if len(changed) > 1:
        advisory(
            f"{why} fired {len(changed)} distinct {EVENT} events for one status change: "
            + ", ".join(d.summary() for d in changed)
        )
    if not pairs:
        return
    # by timestamp, never by arrival (§6 shows no delivery order): of two stamped in one
    # instant, the outcome counts as the later
    by_time = sorted(
        pairs,
        key=lambda pair: (pair[0].timestamp is None, pair[0].timestamp, pair[1] == expected),
    )
    contradicting = [status for _, status in pairs if status not in (expected, PENDING)]
    check(
        not contradicting and by_time[-1][1] == expected,
        STATES_CLAUSE,
        f"{why} makes the external account {expected} and fires {EVENT}: an event whose "
        f"status can be read shows {expected}",
        expected=expected,
        observed=[f"{d.summary()} status={status}" for d, status in by_time],
    )
