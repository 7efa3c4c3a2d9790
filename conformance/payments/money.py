"""How the suite moves money: accounts, funding, external accounts, quotes and execution
(§2, §3 Quote and transaction, §4 Accounts and Quotes and transactions), on top of the
customers of :mod:`conformance.customers.money_customers` and the transaction reads of
:mod:`conformance.payments.transaction_history`.

Tests say what they check; this module does the calls. A step that is only set-up fails
with the clause that makes it valid (a valid quote is created, an approved customer can be
funded), so a broken set-up reads as the violation it is.

Where the interface leaves a name open, it comes from the profile's ``[field_names]``: the
two balance fields, the label, the IBAN account type and the refund object's status.
Where it leaves an outcome open (which identifier suffix pays out successfully, how a
customer's internal accounts come to exist), a test that needs it skips and says so.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from email.utils import parsedate_to_datetime
from typing import Any

import pytest

from conformance.contract import clauses
from conformance.contract import endpoint_schemas as contract
from conformance.contract.failures import check, fail
from conformance.contract.markers import skip_for_missing_hook
from conformance.customers.money_customers import CustomerSetup
from conformance.customers.onboarding import Onboarding
from conformance.exchange.client import ApiResponse, TargetClient
from conformance.ground import hookspecs
from conformance.ground.profile import TargetProfile
from conformance.ground.progress import WaitProgress
from conformance.payments.quote_bodies import Corridor, quote_body
from conformance.payments.target_clock import expiry_proven_at
from conformance.payments.transaction_history import (
    ORDINARY_SUFFIX,
    TransactionHistory,
    amount_of,
    is_final,
    refund_outcome,
)
from conformance.webhooks.sink.store import parse_timestamp

__all__ = [
    "ACCOUNTS_CLAUSE",
    "QUOTES_CLAUSE",
    "SANDBOX_CLAUSE",
    "Balances",
    "Money",
    "Wallet",
    "amount_of",
    "is_final",
    "refund_outcome",
]

ACCOUNTS_CLAUSE = clauses.ACCOUNTS_ENDPOINTS
QUOTES_CLAUSE = clauses.QUOTES_ENDPOINTS
SANDBOX_CLAUSE = clauses.CARDS_AGENTS_SANDBOX_ENDPOINTS
ACCOUNT_CLAUSE = clauses.INTERNAL_ACCOUNT
TRANSITION_CLAUSE = clauses.QUOTE_AND_TRANSACTION_STATES
INTERNAL_ACCOUNT_STATES_CLAUSE = clauses.INTERNAL_ACCOUNT_STATES
US_ROUTING_NUMBER = "021000021"
HOLDER = "Ada Lovelace"
# How long past a quote's lifetime the suite waits for the target's clock to pass expiresAt.
EXPIRY_MARGIN_S = 3.0
LIMITS_CLAUSE = clauses.LIMITS
# §8: a quote lives up to 15 minutes; no wait for an expiry is longer (so a run ends)
LONGEST_QUOTE_LIFETIME_S = 15 * 60


@dataclass(frozen=True, slots=True)
class Wallet:
    """An approved customer with a funded internal account and an ordinary external
    account per currency."""

    customer: dict[str, Any]
    sources: dict[str, dict[str, Any]]
    destinations: dict[str, dict[str, Any]]

    @property
    def customer_id(self) -> str:
        return str(self.customer["id"])

    def corridor(self, source: str = "USD", destination: str = "USD") -> Corridor:
        """From the internal account in ``source`` to the external account in
        ``destination``."""
        return Corridor(
            self.sources[source]["id"], source, self.destinations[destination]["id"], destination
        )

    def corridors(self) -> list[Corridor]:
        """Every pair of a source and a destination currency."""
        return [self.corridor(s, d) for s in self.sources for d in self.destinations]


@dataclass(frozen=True, slots=True)
class Balances:
    """An internal account's available and total balance, in the smallest unit."""

    available: int
    total: int


def _number(suffix: str, length: int = 12) -> str:
    """A fresh digit string of ``length`` ending in ``suffix``."""
    head = "".join(random.choice("0123456789") for _ in range(length - len(suffix) - 1))
    return "4" + head + suffix


class Money(CustomerSetup, TransactionHistory):
    """Creates approved customers and moves money for one test session."""

    def __init__(
        self,
        client: TargetClient,
        profile: TargetProfile,
        failing_number: Callable[[str], str] | None = None,
    ) -> None:
        """``failing_number(currency)`` returns an identifier whose payouts fail (adapter)."""
        self.client = client
        self.profile = profile
        self.onboarding = Onboarding(client, profile)
        self._failing_number = failing_number
        self._terms: dict[str, Any] | None = None
        # quote id -> time.monotonic() when the answer creating it arrived (target_clock.py)
        self._quote_answered_at: dict[str, float] = {}

    # -- names the interface leaves open ---------------------------------------------------

    def balances(self, account: Mapping[str, Any]) -> Balances:
        """The two balances of an internal account, under the profile's field names."""
        __tracebackhide__ = True
        names = (
            self.name("internal_account_available_balance"),
            self.name("internal_account_total_balance"),
        )
        values = [amount_of(account.get(n)) for n in names]
        check(
            all(v is not None for v in values),
            ACCOUNT_CLAUSE,
            "an internal account reports an available balance and a total balance, each an "
            f"integer amount (or {{amount, currency}}); field names from the profile: {names}",
            observed={n: account.get(n) for n in names},
            hint="set [field_names] internal_account_available_balance / "
            "internal_account_total_balance in the profile if the target names them otherwise",
        )
        available, total = values
        assert available is not None and total is not None
        return Balances(available, total)

    # -- customers ---------------------------------------------------------------------------

    # -- a customer ready to pay -------------------------------------------------------------

    def wallet(self, currencies: Sequence[str] = ("USD",), *, funds: int = 100_000_000) -> Wallet:
        """An approved customer in ``currencies`` with each source funded by ``funds``."""
        customer = self.approved_customer(currencies)
        sources = {c: self.funded_account(customer, c, funds) for c in currencies}
        destinations = {c: self.external_account(customer["id"], c) for c in currencies}
        return Wallet(customer, sources, destinations)

    # -- internal accounts -------------------------------------------------------------------

    def internal_accounts(self, customer_id: str) -> list[dict[str, Any]]:
        """GET /customers/internal-accounts?customerId=<id>: the customer's accounts."""
        __tracebackhide__ = True
        response = self.client.get(
            "/customers/internal-accounts", params={"customerId": customer_id}
        )
        check(
            response.status == 200,
            ACCOUNTS_CLAUSE,
            "GET /customers/internal-accounts?customerId=<id> lists the customer's internal "
            "accounts",
            expected=200,
            observed=(response.status, response.content[:300]),
            exchange=response.exchange,
        )
        items = contract.list_items(response.json) or []
        return [i for i in items if isinstance(i, dict)]

    def account(self, customer_id: str, account_id: str) -> dict[str, Any]:
        """The customer's internal account with this id, as listed now."""
        __tracebackhide__ = True
        found = [a for a in self.internal_accounts(customer_id) if a.get("id") == account_id]
        check(
            bool(found),
            ACCOUNTS_CLAUSE,
            "GET /customers/internal-accounts?customerId=<id> lists every account of the customer",
            expected=account_id,
            observed="not listed",
        )
        return found[0]

    def account_balances(self, customer_id: str, account_id: str) -> Balances:
        return self.balances(self.account(customer_id, account_id))

    def active_account(
        self, customer_id: str, currency: str, account_type: str = "INTERNAL_FIAT"
    ) -> dict[str, Any]:
        """The customer's ACTIVE internal account in ``currency``, waiting for provisioning.

        How a customer's internal accounts come to exist is not shown (§2 InternalAccount);
        a target that lists none in the currency makes the test skip. One that stays
        PENDING past the profile's ``webhook_timeout`` fails §3 Internal account.
        """
        __tracebackhide__ = True
        deadline = time.monotonic() + self.profile.webhook_timeout
        pause = 0.05
        while True:
            accounts = [
                a
                for a in self.internal_accounts(customer_id)
                if a.get("currency") == currency and a.get("type") == account_type
            ]
            active = [a for a in accounts if a.get("status") == "ACTIVE"]
            if active:
                return active[0]
            if time.monotonic() >= deadline:
                break
            time.sleep(min(pause, max(deadline - time.monotonic(), 0)))
            pause = min(pause * 2, 1.0)
        if not accounts:
            pytest.skip(
                f"the target lists no {account_type} account in {currency} for an approved "
                f"customer created with currencies including {currency}; how a customer's "
                "internal accounts come to exist is not shown (§2 InternalAccount)"
            )
        fail(
            INTERNAL_ACCOUNT_STATES_CLAUSE,
            "a PENDING internal account becomes ACTIVE when provisioning completes",
            expected="ACTIVE",
            observed=[a.get("status") for a in accounts],
            hint=f"still not ACTIVE {self.profile.webhook_timeout:g} s after the customer "
            "was approved",
        )

    def fund(self, account_id: str, amount: int) -> ApiResponse:
        """POST /sandbox/internal-accounts/{id}/fund {amount}."""
        return self.client.post(
            f"/sandbox/internal-accounts/{account_id}/fund", json={"amount": amount}
        )

    def fund_ok(self, account_id: str, amount: int) -> dict[str, Any]:
        """Fund an ACTIVE account of an approved customer; the updated InternalAccount."""
        __tracebackhide__ = True
        response = self.fund(account_id, amount)
        check(
            200 <= response.status < 300,
            SANDBOX_CLAUSE,
            "POST /sandbox/internal-accounts/{accountId}/fund with an amount credits an "
            "ACTIVE account of an approved customer and returns the updated InternalAccount",
            expected="2xx",
            observed=(response.status, response.content[:300]),
            exchange=response.exchange,
        )
        account: dict[str, Any] = response.json
        return account

    def funded_account(
        self, customer: Mapping[str, Any], currency: str = "USD", amount: int = 10_000_000
    ) -> dict[str, Any]:
        """The customer's ACTIVE account in ``currency``, funded with ``amount``."""
        account = self.active_account(customer["id"], currency)
        self.fund_ok(account["id"], amount)
        return self.account(customer["id"], account["id"])

    # -- external accounts -------------------------------------------------------------------

    def account_info(self, currency: str, number: str) -> dict[str, Any]:
        """accountInfo for a bank account in ``currency`` whose identifier ends in ``number``.

        USD: ``US_ACCOUNT`` (§2 ExternalAccount); other currencies: an IBAN account, whose
        type and field names come from the profile (not shown).
        """
        if currency == "USD":
            return {
                "accountType": "US_ACCOUNT",
                "accountNumber": number,
                "routingNumber": US_ROUTING_NUMBER,
                "accountCategory": "CHECKING",
                "accountHolderName": HOLDER,
            }
        iban = "DE89" + number.rjust(18, "0")[-18:]
        return {
            "accountType": self.name("iban_account_type"),
            self.name("iban_account_number"): iban,
            "accountHolderName": HOLDER,
        }

    def external_body(self, customer_id: str, currency: str, number: str) -> dict[str, Any]:
        return {
            "customerId": customer_id,
            "currency": currency,
            "accountInfo": self.account_info(currency, number),
        }

    def create_external(self, customer_id: str, currency: str, number: str) -> ApiResponse:
        """POST /customers/external-accounts."""
        body = self.external_body(customer_id, currency, number)
        return self.client.post("/customers/external-accounts", json=body)

    def external_account(
        self,
        customer_id: str,
        currency: str = "USD",
        *,
        number: str | None = None,
        suffix: str = ORDINARY_SUFFIX,
    ) -> dict[str, Any]:
        """A registered external account; its identifier ends in ``suffix`` unless given."""
        __tracebackhide__ = True
        response = self.create_external(customer_id, currency, number or _number(suffix))
        check(
            response.status in (200, 201),
            ACCOUNTS_CLAUSE,
            "POST /customers/external-accounts with {customerId, currency, accountInfo} "
            f"registers a {currency} account",
            expected="200 or 201",
            observed=(response.status, response.content[:300]),
            exchange=response.exchange,
            hint=None
            if currency == "USD"
            else "for non-USD accounts the suite sends an IBAN account named by the profile's "
            "[field_names] iban_account_type / iban_account_number",
        )
        account: dict[str, Any] = response.json
        return account

    def failing_external_account(self, customer_id: str, currency: str = "USD") -> dict[str, Any]:
        """An external account whose payouts fail; the number comes from the adapter hook
        ``pytest_conformance_failing_account_number`` (§4: those outcomes are not shown)."""
        if self._failing_number is None:
            skip_for_missing_hook(hookspecs.pytest_conformance_failing_account_number)
        return self.external_account(customer_id, currency, number=self._failing_number(currency))

    # -- quotes ------------------------------------------------------------------------------

    def create_quote(self, body: Mapping[str, Any]) -> ApiResponse:
        """POST /quotes."""
        return self.client.post("/quotes", json=dict(body))

    def quote(self, body: Mapping[str, Any]) -> dict[str, Any]:
        """A quote created from a valid body."""
        __tracebackhide__ = True
        response = self.create_quote(body)
        check(
            response.status in (200, 201),
            QUOTES_CLAUSE,
            "POST /quotes with a valid request creates the Quote",
            expected=201,
            observed=(response.status, response.content[:300]),
            exchange=response.exchange,
        )
        quote: dict[str, Any] = response.json
        if isinstance(quote.get("id"), str):
            self._quote_answered_at[quote["id"]] = time.monotonic()
        return quote

    def server_time(self) -> datetime | None:
        """The target's clock, from the Date header of a cheap request (None without one)."""
        response = self.client.get("/config")
        # a duplicated header is read as its first value; HTTP dates are GMT, zone or not
        headers = response.headers.get_list("date")
        try:
            parsed = parsedate_to_datetime(headers[0]) if headers else None
        except (TypeError, ValueError, IndexError, OverflowError):
            return None
        if parsed is not None and parsed.tzinfo is None:
            parsed = parsed.replace(tzinfo=UTC)
        return parsed

    def wait_past(
        self,
        quote: Mapping[str, Any],
        *,
        what: str = "a quote to expire",
        limit_clause: str | None = LIMITS_CLAUSE,
    ) -> None:
        """Wait until the target's clock has passed the quote's ``expiresAt``.

        Ends at the first proof of it (``target_clock.py``): the target's Date header later
        than ``expiresAt`` (polled, less often while expiry is far), or enough time since
        the answer that created the quote (``quote["id"]``, made by :meth:`quote`). Without
        a Date header, the local clock shifted by the target's ``createdAt``. Bounded by
        ``expiresAt`` plus ``EXPIRY_MARGIN_S``, never a fixed sleep. A long wait shows
        ``what`` it awaits on the console.

        A stated lifetime over 15 minutes is not awaited: it fails ``limit_clause`` (§8
        bounds a quote's), or, where the interface bounds none (None), the test skips.
        """
        expires = parse_timestamp(quote.get("expiresAt"))
        created = parse_timestamp(quote.get("createdAt"))
        if expires is None:
            return
        offset = (created - datetime.now(UTC)) if created is not None else timedelta(0)
        lifetime = (expires - created).total_seconds() if created is not None else 0.0
        if lifetime > LONGEST_QUOTE_LIFETIME_S + 1:  # a second for rounded timestamps
            stated = {"createdAt": quote.get("createdAt"), "expiresAt": quote.get("expiresAt")}
            if limit_clause is None:
                pytest.skip(
                    f"{what}: expiresAt is {lifetime:.0f} s after createdAt ({stated}); the "
                    "run waits at most 15 minutes (a quote's longest lifetime, §8)"
                )
            fail(
                limit_clause,
                "a quote lives up to 15 minutes: its expiry is awaited no longer",
                expected=f"expiresAt - createdAt <= {LONGEST_QUOTE_LIFETIME_S} s",
                observed=stated,
            )
        deadline = time.monotonic() + max(lifetime, 0.0) + EXPIRY_MARGIN_S
        answered_at = self._quote_answered_at.get(str(quote.get("id")))
        proven_at = (
            None
            if answered_at is None
            else expiry_proven_at(quote.get("createdAt"), quote.get("expiresAt"), answered_at)
        )
        progress: WaitProgress | None = None
        while time.monotonic() < deadline:
            if proven_at is not None and time.monotonic() >= proven_at:
                break
            server = self.server_time()
            now = server if server is not None else datetime.now(UTC) + offset
            if now > expires:
                break
            left = (expires - now).total_seconds()
            if progress is None:
                progress = WaitProgress(f"{what} (expiresAt {quote.get('expiresAt')})",
                                        min(left + 1, deadline - time.monotonic()))  # fmt: skip
            progress.tick(left)
            # half the time left while far (the Date header counts whole seconds), then 0.5 s
            pause = max(min(left / 2, 15.0), min(left, 0.5), 0.05)
            wake = deadline if proven_at is None else min(deadline, proven_at)
            time.sleep(min(pause, max(wake - time.monotonic(), 0)))
        if progress is not None:
            progress.done()

    def execute(self, quote_id: str) -> ApiResponse:
        """POST /quotes/{quoteId}/execute (no body)."""
        return self.client.post(f"/quotes/{quote_id}/execute")

    def execute_ok(self, quote_id: str) -> dict[str, Any]:
        """Execute a PENDING quote before its expiry; the executed quote."""
        __tracebackhide__ = True
        response = self.execute(quote_id)
        check(
            200 <= response.status < 300,
            TRANSITION_CLAUSE,
            "POST /quotes/{quoteId}/execute on a PENDING quote before expiresAt, from a "
            "prefunded source, executes it",
            expected="2xx",
            observed=(response.status, response.content[:300]),
            exchange=response.exchange,
        )
        quote: dict[str, Any] = response.json
        return quote

    def pay(
        self, source_id: str, destination_id: str, amount: int = 10_000, **extra: Any
    ) -> dict[str, Any]:
        """Quote and execute at once; the executed quote."""
        quote = self.quote(quote_body(source_id, destination_id, amount=amount, **extra))
        return self.execute_ok(quote["id"])
