"""Money conservation on one internal account: a model of what the account must hold, and a
Hypothesis state machine that funds, quotes, executes and pays to failing destinations at
random, checking the account against the model after every step.

The model is what the interface states:

- funding credits the account (§4 ``POST /sandbox/internal-accounts/{id}/fund``);
- execution debits the quote's ``totalSendingAmount`` immediately (§3), once;
- a payment that settles ``COMPLETED`` keeps that debit; a ``FAILED`` one is refunded
  automatically, the whole debited amount, unless its refund fails (§2 Transaction, §3);
- a payment still ``PENDING`` or ``PROCESSING`` is held: the available balance excludes it,
  and the total balance includes pending and held funds (§2 InternalAccount). Whether a
  held debit still counts in the total is read both ways (it is "debited immediately").

Every example runs on a new approved customer, so its transaction history holds only that
example's payments. After each step the suite waits (bounded by the profile's
``webhook_timeout``) until every payment that can settle has settled, then checks that both
balances equal the baseline plus funding less what the transaction history says left the
account, and that the history agrees with what the suite executed.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from hypothesis import Phase, seed, settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    Bundle,
    RuleBasedStateMachine,
    initialize,
    invariant,
    rule,
    run_state_machine_as_test,
)

from conformance.contract import clauses
from conformance.contract.failures import check, fail
from conformance.customers.money_customers import MoneyCustomers
from conformance.exchange.list_pages import skip_unlisted
from conformance.payments.external_accounts import ExternalAccounts
from conformance.payments.funding import Balances, Funding
from conformance.payments.quote_bodies import quote_body
from conformance.payments.quotes import Quotes
from conformance.payments.transaction_history import (
    TransactionHistory,
    amount_of,
    is_final,
    refund_outcome,
)

__all__ = [
    "DESTINATIONS",
    "LANES",
    "Accounts",
    "Ledger",
    "Payment",
    "conservation_machine",
    "lane_seed",
    "outflow",
    "run_lane",
]

CLAUSE = clauses.QUOTE_AND_TRANSACTION_STATES
BALANCE_CLAUSE = clauses.INTERNAL_ACCOUNT
DESTINATIONS = ("ordinary", "failing", "timeout")
HELD = ("PENDING", "PROCESSING")
FUNDING_REQUIREMENT = "SANDBOX-FUND-INTERNAL-ACCOUNT"
DEBIT_REQUIREMENT = "QUOTE-EXECUTE-DEBITS-SOURCE"
REFUND_REQUIREMENT = "REFUND-QUOTE-EXECUTION-FAILED-DEBIT-RETURNED"
AMOUNTS = st.integers(min_value=1_000, max_value=200_000)
STEPS_MAX = 50
# Funded at the start of every example: twice what STEPS_MAX payments of the largest amount
# send, so no payment is refused for funds and a replayed example takes the same path.
EXAMPLE_FUNDS = 2 * STEPS_MAX * 200_000
# The examples are shared out among this many tests (lanes), which workers run side by side:
# one lane of every example was a run's critical path against a distant target (15 examples
# of some 40 sequential requests each, 30 s at 50 ms).
LANES = 4


@dataclass(frozen=True, slots=True)
class Payment:
    """An executed quote: its transaction, what it debits and where it went."""

    quote_id: str
    transaction_id: str
    amount: int
    destination: str


def outflow(transaction: Mapping[str, Any], refund_status: str) -> tuple[int, int]:
    """(spent, held) per unit of an executed payment, given its transaction now.

    ``COMPLETED``, or ``FAILED`` with a failed refund: spent. ``PENDING``/``PROCESSING``, or
    ``FAILED`` with the refund not yet final: held. ``FAILED`` refunded: nothing.
    """
    status = transaction.get("status")
    refund = refund_outcome(transaction, refund_status)
    if status == "COMPLETED" or (status == "FAILED" and refund == "FAILED"):
        return 1, 0
    if status in HELD or (status == "FAILED" and refund != "COMPLETED"):
        return 0, 1
    return 0, 0


@dataclass
class Ledger:
    """What one example did to its account since ``baseline`` was read."""

    baseline: Balances
    funded: int = 0
    payments: list[Payment] = field(default_factory=list)
    # when the balances last added up: the funding, and each payment's outflow then (what
    # moved since is what the steps since did)
    verified: tuple[int, dict[str, tuple[int, int]]] = field(default_factory=lambda: (0, {}))

    def outflows(
        self, history: Mapping[str, Mapping[str, Any]], refund_status: str
    ) -> dict[str, tuple[int, int]]:
        """Each payment's (spent, held) per unit now (``outflow``)."""
        return {
            p.transaction_id: outflow(history[p.transaction_id], refund_status)
            for p in self.payments
        }

    def step_requirement(
        self, history: Mapping[str, Mapping[str, Any]], refund_status: str
    ) -> str | None:
        """The one requirement balances that no longer add up break, where what changed
        since they last did moved money one way only: funding alone (the fund call credits
        the account), a new payment that completed (execution debits its sending amount), or
        one payment that failed and was refunded (a failed payment moves nothing net:
        whatever it debited comes back). None when more changed, or anything else did."""
        funded, seen = self.verified
        now = self.outflows(history, refund_status)
        changed = [p for p in self.payments if seen.get(p.transaction_id) != now[p.transaction_id]]
        if not changed:
            return FUNDING_REQUIREMENT if self.funded != funded else None
        if self.funded != funded or len(changed) != 1:
            return None
        transaction = history[changed[0].transaction_id]
        status = transaction.get("status")
        if status == "COMPLETED" and changed[0].transaction_id not in seen:
            return DEBIT_REQUIREMENT
        if status == "FAILED" and refund_outcome(transaction, refund_status) == "COMPLETED":
            return REFUND_REQUIREMENT
        return None

    def expected(
        self, history: Mapping[str, Mapping[str, Any]], refund_status: str
    ) -> tuple[int, tuple[int, ...]]:
        """(available, acceptable totals) the account must show, given the history."""
        spent = held = 0
        for payment in self.payments:
            now = outflow(history[payment.transaction_id], refund_status)
            spent, held = spent + now[0] * payment.amount, held + now[1] * payment.amount
        available = self.baseline.available + self.funded - spent - held
        base_total = self.baseline.total + self.funded - spent
        return available, tuple(dict.fromkeys((base_total - held, base_total)))


def settle(
    history: TransactionHistory, customer_id: str, payments: Sequence[Payment]
) -> dict[str, Any]:
    """The customer's transactions by id once every payment that can settle has settled.

    Timeout payments (identifier ending in 005) are not waited for: the sandbox leaves them
    unsettled (§4 Sandbox behaviours).
    """
    __tracebackhide__ = True
    status_name = history.profile.field_name("refund_status")
    waiting = [p for p in payments if p.destination != "timeout"]
    if waiting:
        # the poll that finds them settled lists the whole history: no second request (a
        # round trip per step of the longest test, 50 ms each against a distant target)
        found = history.wait_for_transactions(
            customer_id,
            [p.transaction_id for p in waiting],
            lambda t: is_final(t, status_name),
            why="in the sandbox every transfer settles at once, in success or failure, and a "
            "failed one is refunded automatically (§4 Sandbox behaviours, §3)",
        )
        if all(p.transaction_id in found for p in payments):
            return found
    listing = history.listing(customer_id)
    missing = [p.transaction_id for p in payments if p.transaction_id not in
               {t.get("id") for t in listing.items}]  # fmt: skip
    if missing and not listing.complete:  # on a page the suite cannot read: not a failure
        skip_unlisted(listing, f"transaction {missing[0]}")
    return {t["id"]: t for t in listing.items if "id" in t}


def check_history(payments: Sequence[Payment], history: Mapping[str, Mapping[str, Any]]) -> None:
    """Every executed quote has its transaction, moving the quoted sending amount."""
    __tracebackhide__ = True
    for payment in payments:
        transaction = history.get(payment.transaction_id)
        if transaction is None:
            fail(
                CLAUSE,
                "an executed quote's transaction is in the transaction history (GET /transactions)",
                expected=payment.transaction_id,
                observed="not listed",
            )
        sent = amount_of(transaction.get("sentAmount"))
        check(
            sent == payment.amount,
            clauses.QUOTES_ENDPOINTS + " (rule 4)",
            "a transaction moves the amounts its quote fixed: sentAmount is the quote's "
            "totalSendingAmount",
            expected=payment.amount,
            observed=sent,
            hint=f"transaction {payment.transaction_id}",
            requirement="FEES-FIXED-FOR-QUOTE-LIFE",
        )


def check_balances(
    refund_status: str,
    ledger: Ledger,
    observed: Balances,
    history: Mapping[str, Mapping[str, Any]],
) -> None:
    """Both balances equal the baseline plus funding less what left, per the history (charged
    to the requirement the last step broke, ``Ledger.step_requirement``, where it tells)."""
    __tracebackhide__ = True
    available, totals = ledger.expected(history, refund_status)
    broken = ledger.step_requirement(history, refund_status)
    statuses = {
        p.transaction_id[-8:]: (
            p.destination,
            p.amount,
            history[p.transaction_id].get("status"),
            refund_outcome(history[p.transaction_id], refund_status),
        )
        for p in ledger.payments
    }
    story = (
        f"baseline {ledger.baseline}, funded {ledger.funded}, payments "
        f"(destination, amount, status, refund): {statuses}"
    )
    check(
        observed.available == available,
        CLAUSE,
        "money is conserved: the available balance is what was funded, less every completed "
        "debit and every held payment, with failed payments refunded in full",
        expected=available,
        observed=observed.available,
        hint=story,
        requirement=broken,
    )
    check(
        observed.total in totals,
        BALANCE_CLAUSE,
        "money is conserved: the total balance is what was funded less every completed "
        "debit, failed payments refunded in full, and includes pending and held funds",
        expected=" or ".join(map(str, totals)),
        observed=observed.total,
        hint=story,
        requirement=broken,
    )
    ledger.verified = (ledger.funded, ledger.outflows(history, refund_status))


@dataclass(frozen=True, slots=True)
class Accounts:
    """One example's approved customer, its source account and its three destinations."""

    customer_id: str
    source_id: str
    destinations: dict[str, str]

    @classmethod
    def open(
        cls, customers: MoneyCustomers, funding: Funding, external: ExternalAccounts
    ) -> Accounts:
        """A new approved customer: its USD account and an ordinary, a failing (adapter)
        and a timeout (005) external account."""
        customer = customers.approved_customer(["USD"])
        source = funding.active_account(customer["id"], "USD")
        destinations = {
            "ordinary": external.external_account(customer["id"])["id"],
            "failing": external.failing_external_account(customer["id"])["id"],
            "timeout": external.external_account(customer["id"], suffix="005")["id"],
        }
        return cls(customer["id"], source["id"], destinations)


def conservation_machine(
    customers: MoneyCustomers,
    funding: Funding,
    external: ExternalAccounts,
    quoting: Quotes,
    transactions: TransactionHistory,
) -> type[RuleBasedStateMachine]:
    """A state machine class; each example runs on a new customer's account, so its
    transaction history holds that example's payments only."""

    class MoneyConservation(RuleBasedStateMachine):
        quotes = Bundle("quotes")

        def __init__(self) -> None:
            super().__init__()
            self.accounts = Accounts.open(customers, funding, external)
            baseline = funding.account_balances(self.accounts.customer_id, self.accounts.source_id)
            self.ledger = Ledger(baseline)
            self.executed_quotes: list[str] = []

        def _execute(self, quote: Mapping[str, Any], destination: str) -> None:
            response = quoting.execute(quote["id"])
            if 200 <= response.status < 300:
                transaction_id = response.json.get("transactionId") or quote.get("transactionId")
                amount = amount_of(quote.get("totalSendingAmount"))
                assert amount is not None, "the client checked the quote's schema"
                payment = Payment(quote["id"], str(transaction_id), amount, destination)
                self.ledger.payments.append(payment)
                self.executed_quotes.append(quote["id"])

        def _body(self, destination: str, amount: int, side: str = "SENDING") -> dict[str, Any]:
            target = self.accounts.destinations[destination]
            return quote_body(self.accounts.source_id, target, side, amount)

        @initialize()
        def fund_the_example(self) -> None:
            """Enough for every payment of the example, so none is refused for funds."""
            self.fund(EXAMPLE_FUNDS)

        @rule(amount=AMOUNTS)
        def fund(self, amount: int) -> None:
            funding.fund_ok(self.accounts.source_id, amount)
            self.ledger.funded += amount

        @rule(
            target=quotes,
            destination=st.sampled_from(DESTINATIONS),
            amount=AMOUNTS,
            side=st.sampled_from(("SENDING", "RECEIVING")),
        )
        def quote(self, destination: str, amount: int, side: str) -> tuple[dict[str, Any], str]:
            return quoting.quote(self._body(destination, amount, side)), destination

        @rule(quoted=quotes)
        def execute(self, quoted: tuple[dict[str, Any], str]) -> None:
            self._execute(*quoted)

        @rule(destination=st.sampled_from(DESTINATIONS), amount=AMOUNTS)
        def pay(self, destination: str, amount: int) -> None:
            self._execute(quoting.quote(self._body(destination, amount)), destination)

        @rule(pick=st.integers(min_value=0, max_value=STEPS_MAX))
        def execute_again(self, pick: int) -> None:
            """A second execute of an executed quote: refused or not, the balances tell."""
            if self.executed_quotes:
                quoting.execute(self.executed_quotes[pick % len(self.executed_quotes)])

        @invariant()
        def money_is_conserved(self) -> None:
            customer_id, source_id = self.accounts.customer_id, self.accounts.source_id
            history = settle(transactions, customer_id, self.ledger.payments)
            check_history(self.ledger.payments, history)
            observed = funding.account_balances(customer_id, source_id)
            refund_status = transactions.profile.field_name("refund_status")
            check_balances(refund_status, self.ledger, observed, history)

    return MoneyConservation


def lane_seed(lane: int, derandomize: bool, forced_seed: object | None) -> int | None:
    """The seed of ``lane``: None where Hypothesis draws one at random for each test (the
    lanes differ), else one per lane, so a derandomized or ``--hypothesis-seed`` run stays
    repeatable without every lane drawing the same examples."""
    if forced_seed is None and not derandomize:
        return None
    digest = hashlib.sha256(f"money conservation {forced_seed} lane {lane}".encode()).digest()
    return int.from_bytes(digest[:8], "big")


def run_lane(
    machine: type[RuleBasedStateMachine],
    lane: int,
    steps: int,
    forced_seed: object | None = None,
    profile: settings | None = None,
) -> None:
    """Run lane ``lane`` of ``LANES``: its share of the examples of ``profile`` (the loaded
    Hypothesis profile by default), ``steps`` steps each, drawn apart from the other lanes'.

    No shrinking: every replay moves real money on the target; the failing steps are
    reported as generated.
    """
    run = profile if profile is not None else settings()  # the loaded profile's values
    chosen = lane_seed(lane, run.derandomize, forced_seed)
    if chosen is not None:
        machine = seed(chosen)(machine)
    run_state_machine_as_test(
        machine,
        settings=settings(
            run,
            max_examples=-(-run.max_examples // LANES),
            stateful_step_count=steps,
            phases=(Phase.explicit, Phase.reuse, Phase.generate),
        ),
    )
