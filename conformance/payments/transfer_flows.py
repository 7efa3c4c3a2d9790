"""How the suite moves money beyond the prefunded corridor (§1 Funding, §2 Quote and
Transaction, §3, §4 Quotes and transactions and sandbox, §9.2): just-in-time quotes and
``POST /sandbox/send``, deposits carrying a reference (adapter), pull sources, UMA
destinations, wallet payouts and the deprecated ``/transfer-in`` / ``/transfer-out``.

Built on the money parts (customers, funding, quotes, transaction history); tests say what
they check, this module makes the calls. Names the interface leaves open come from the
profile's ``[field_names]``: ``uma_address`` (the UMA destination's address field) and
``wallet_account_type``.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from conformance.contract import clauses
from conformance.contract.markers import skip_for_missing_hook
from conformance.customers.money_customers import MoneyCustomers
from conformance.exchange.assertions import required_json
from conformance.exchange.client import ApiResponse
from conformance.exchange.list_pages import skip_unlisted
from conformance.ground import hookspecs
from conformance.payments.external_accounts import ACCOUNTS_CLAUSE, ORDINARY_SUFFIX
from conformance.payments.funding import Funding
from conformance.payments.quotes import QUOTES_CLAUSE, Quotes
from conformance.payments.transaction_history import TransactionHistory, amount_of

__all__ = [
    "PAY_HOOK",
    "SEND_CLAUSE",
    "TRANSFER_BODY_HOOK",
    "JustInTime",
    "Transfers",
    "instruction_infos",
    "reference_of",
]

PAY_HOOK = hookspecs.pytest_conformance_pay_instructions
TRANSFER_BODY_HOOK = hookspecs.pytest_conformance_transfer_body
SEND_CLAUSE = clauses.CARDS_AGENTS_SANDBOX_ENDPOINTS + " — POST /sandbox/send"
ACCOUNT_CLAUSE = clauses.EXTERNAL_ACCOUNT
UMA_DOMAIN = "uma.conformance.example"
WALLET_NETWORK = "ETHEREUM"
# A just-in-time quote's sending amount: far above any fee in any currency the suite uses.
JIT_AMOUNT = 25_000
PayInstructions = Callable[[str, str, str, int], Mapping[str, Any]]
TransferBody = Callable[[str, str, str, int, str], Mapping[str, Any]]


def instruction_infos(quote: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The ``accountOrWalletInfo`` objects of a quote's ``paymentInstructions``."""
    entries = quote.get("paymentInstructions")
    if not isinstance(entries, list):
        return []
    infos = [e.get("accountOrWalletInfo") for e in entries if isinstance(e, dict)]
    return [i for i in infos if isinstance(i, dict)]


def reference_of(quote: Mapping[str, Any]) -> str | None:
    """The first ``reference`` among the quote's instructions."""
    for info in instruction_infos(quote):
        if isinstance(info.get("reference"), str) and info["reference"]:
            return str(info["reference"])
    return None


@dataclass(frozen=True, slots=True)
class JustInTime:
    """An approved customer, the internal account a just-in-time quote pays into, and the
    quote (``PENDING``, with its instructions)."""

    customer_id: str
    destination_id: str
    quote: dict[str, Any]

    @property
    def quote_id(self) -> str:
        return str(self.quote["id"])

    @property
    def transaction_id(self) -> str:
        return str(self.quote.get("transactionId"))


def _digits(suffix: str, length: int = 10) -> str:
    return "".join(random.choice("0123456789") for _ in range(length - len(suffix))) + suffix


class Transfers:
    """Just-in-time quotes, pull sources, UMA and wallet payouts, deprecated transfers."""

    def __init__(
        self,
        customers: MoneyCustomers,
        funding: Funding,
        quotes: Quotes,
        history: TransactionHistory,
        pay_instructions: PayInstructions | None = None,
        transfer_body: TransferBody | None = None,
    ) -> None:
        """``pay_instructions(quote_id, reference, currency, amount)`` and
        ``transfer_body(direction, source_id, destination_id, amount, currency)`` call the
        adapter hooks of the same names; tests that need them skip without."""
        self.customers = customers
        self.funding = funding
        self.quotes = quotes
        self.history = history
        self.client = funding.client
        self.profile = funding.profile
        self._pay_instructions = pay_instructions
        self._transfer_body = transfer_body

    # -- just-in-time funding ------------------------------------------------------------

    @staticmethod
    def jit_body(
        customer_id: str, currency: str, destination_id: str, amount: int = JIT_AMOUNT, **extra: Any
    ) -> dict[str, Any]:
        """A POST /quotes body funded just in time (§2 Quote source ``REALTIME_FUNDING``)."""
        return {
            "source": {
                "sourceType": "REALTIME_FUNDING",
                "customerId": customer_id,
                "currency": currency,
            },
            "destination": {"destinationType": "ACCOUNT", "accountId": destination_id},
            "lockedCurrencySide": "SENDING",
            "lockedCurrencyAmount": amount,
            **extra,
        }

    def just_in_time(self, currency: str = "USD", amount: int = JIT_AMOUNT) -> JustInTime:
        """A new approved customer and a just-in-time quote in ``currency`` into its own
        USD internal account."""
        __tracebackhide__ = True
        customer = self.customers.approved_customer(("USD",))
        destination = self.funding.active_account(customer["id"], "USD")
        body = self.jit_body(customer["id"], currency, destination["id"], amount)
        quote = self.quotes.quote(body)
        return JustInTime(str(customer["id"]), str(destination["id"]), quote)

    def send(self, quote_id: str, currency: str, amount: int | None = None) -> ApiResponse:
        """POST /sandbox/send {quoteId, currencyCode, currencyAmount?}."""
        body: dict[str, Any] = {"quoteId": quote_id, "currencyCode": currency}
        if amount is not None:
            body["currencyAmount"] = amount
        return self.client.post("/sandbox/send", json=body)

    def send_ok(self, quote_id: str, currency: str, amount: int | None = None) -> dict[str, Any]:
        """Pay a just-in-time quote through the sandbox; the Transaction answered."""
        __tracebackhide__ = True
        response = self.send(quote_id, currency, amount)
        transaction: dict[str, Any] = required_json(
            response,
            SEND_CLAUSE,
            "POST /sandbox/send {quoteId, currencyCode} with the funding-source currency pays a "
            "PENDING just-in-time quote and returns the Transaction",
        )
        return transaction

    def pay_instructions(
        self, quote: Mapping[str, Any], reference: str, currency: str
    ) -> Mapping[str, Any]:
        """A deposit into the quote's instructions carrying ``reference`` (adapter hook
        ``pytest_conformance_pay_instructions``)."""
        if self._pay_instructions is None:
            skip_for_missing_hook(hookspecs.pytest_conformance_pay_instructions)
        amount = int(quote.get("totalSendingAmount") or 0)
        return self._pay_instructions(str(quote["id"]), reference, currency, amount)

    def quote_now(self, quote_id: str) -> dict[str, Any]:
        """GET /quotes/{quoteId}."""
        __tracebackhide__ = True
        response = self.client.get(f"/quotes/{quote_id}")
        quote: dict[str, Any] = required_json(
            response,
            QUOTES_CLAUSE,
            "GET /quotes/{quoteId} returns a quote the platform created",
            status=200,
        )
        return quote

    # -- UMA destinations ----------------------------------------------------------------

    def uma_address(self, suffix: str = ORDINARY_SUFFIX) -> str:
        """``$<username>@<domain>`` whose username part ends in ``suffix`` (by default the
        ordinary suffix: random last digits could select a scenario such as ``1xx``)."""
        return f"$conformance{_digits(suffix)}@{UMA_DOMAIN}"

    def uma_body(self, source_id: str, address: str, amount: int = 10_000) -> dict[str, Any]:
        """A POST /quotes body paying a UMA address (field name from the profile)."""
        return {
            "source": {"sourceType": "ACCOUNT", "accountId": source_id},
            "destination": {
                "destinationType": "UMA_ADDRESS",
                self.profile.field_name("uma_address"): address,
            },
            "lockedCurrencySide": "SENDING",
            "lockedCurrencyAmount": amount,
        }

    def incoming_transaction(self, customer_id: str, amount: int) -> dict[str, Any] | None:
        """Poll the customer's transactions (bounded by the profile's ``webhook_timeout``)
        for one that is not OUTGOING/DEBIT and receives ``amount``; None if none appears."""
        deadline = time.monotonic() + self.profile.webhook_timeout
        pause = 0.02
        while True:
            listing = self.history.listing(customer_id)
            for transaction in listing.items:
                outgoing = (transaction.get("type"), transaction.get("direction")) == (
                    "OUTGOING",
                    "DEBIT",
                )
                if not outgoing and amount_of(transaction.get("receivedAmount")) == amount:
                    return transaction
            if time.monotonic() >= deadline:
                if not listing.complete:  # it may be on a page the suite cannot read
                    skip_unlisted(listing, f"an incoming transaction of {amount}")
                return None
            time.sleep(min(pause, max(deadline - time.monotonic(), 0)))
            pause = min(pause * 2, 0.5)

    # -- wallets -------------------------------------------------------------------------

    def wallet_body(self, customer_id: str, currency: str = "USDC") -> dict[str, Any]:
        """POST /customers/external-accounts body of an external wallet (§2
        ExternalAccount: the wallet type carries ``address``; its type name comes from the
        profile)."""
        return {
            "customerId": customer_id,
            "currency": currency,
            "accountInfo": {
                "accountType": self.profile.field_name("wallet_account_type"),
                "address": "0x" + _digits("000", 40),
                "network": WALLET_NETWORK,
            },
        }

    def wallet_account(self, customer_id: str, currency: str = "USDC") -> dict[str, Any]:
        """A registered external wallet (see :meth:`wallet_body`)."""
        __tracebackhide__ = True
        body = self.wallet_body(customer_id, currency)
        response = self.client.post("/customers/external-accounts", json=body)
        account: dict[str, Any] = required_json(
            response,
            ACCOUNTS_CLAUSE,
            "POST /customers/external-accounts registers a wallet (accountInfo with accountType "
            "and address)",
            status=(200, 201),
            hint="set [field_names] wallet_account_type in the profile if the target names the "
            "wallet type otherwise",
        )
        return account

    # -- the deprecated transfer endpoints (§9.2) ----------------------------------------

    def legacy_transfer(
        self, direction: str, source_id: str, destination_id: str, amount: int, currency: str
    ) -> ApiResponse:
        """POST /transfer-in or /transfer-out with the adapter's body (shapes not shown)."""
        if self._transfer_body is None:
            skip_for_missing_hook(hookspecs.pytest_conformance_transfer_body)
        body = self._transfer_body(direction, source_id, destination_id, amount, currency)
        return self.client.post(f"/transfer-{direction}", json=dict(body))
