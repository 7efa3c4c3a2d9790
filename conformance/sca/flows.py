"""How the suite walks strong customer authentication (§5 SCA paragraph; §2 Quote
``scaChallenge``; §3 Quote and transaction; §4 ``POST /quotes/{quoteId}/authorize`` and
``POST /sca/login/complete``): customers under SCA, challenged executes, proofs, sessions.

§5 puts EU customers on EUR (or USDC) transfers under SCA; the suite's SCA customer lives in
Germany (address, region and nationality ``DE``) and sends EUR. The proof for a challenge
and the body of the SCA login are not shown: they come from the adapter hooks
``pytest_conformance_sca_proof`` and ``pytest_conformance_sca_login_body``, and the suite
sends them itself, so the target's answer is what is checked.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import pytest

from conformance.contract import clauses
from conformance.contract.failures import check
from conformance.customers.money_customers import MoneyCustomers
from conformance.exchange import assertions
from conformance.exchange.assertions import required_json
from conformance.exchange.client import ApiResponse
from conformance.ground import hookspecs
from conformance.payments.external_accounts import ExternalAccounts
from conformance.payments.funding import Funding, Wallet
from conformance.payments.quotes import Quotes
from conformance.payments.transaction_history import TransactionHistory

__all__ = [
    "AUTHORIZE_CLAUSE",
    "LOGIN_HOOK",
    "PROOF_HOOK",
    "SCA_CLAUSE",
    "Sca",
    "challenge_of",
    "error_code",
]

SCA_CLAUSE = clauses.AUTHENTICATION + " — SCA"
TRANSITION_CLAUSE = clauses.QUOTE_AND_TRANSACTION_STATES
AUTHORIZE_CLAUSE = clauses.QUOTES_ENDPOINTS + " — POST /quotes/{quoteId}/authorize"
LOGIN_CLAUSE = clauses.CARDS_AGENTS_SANDBOX_ENDPOINTS + " — POST /sca/login/complete"
LOGIN_HOOK = hookspecs.pytest_conformance_sca_login_body
PROOF_HOOK = hookspecs.pytest_conformance_sca_proof
AWAITING = "PENDING_AUTHORIZATION"
# conversion and payout may each need a challenge (§3); more than this is a loop
MAX_CHALLENGES = 4
EEA_FIELDS: dict[str, Any] = {
    "region": "DE",
    "nationality": "DE",
    "address": {"line1": "Unter den Linden 1", "city": "Berlin", "postalCode": "10117",
                "country": "DE"},
}  # fmt: skip
EEA_BUSINESS_INFO = {"country": "DE", "taxId": "DE123456789"}

LoginBody = Callable[[str], "dict[str, Any] | None"]
Proof = Callable[[str, Mapping[str, Any], bool], "dict[str, Any] | None"]


def challenge_of(quote: Mapping[str, Any]) -> dict[str, Any] | None:
    """The quote's ``scaChallenge`` when it is an object."""
    challenge = quote.get("scaChallenge")
    return challenge if isinstance(challenge, dict) else None


error_code = assertions.error_code  # the code answered, for reports (§7: any member)
has_code = assertions.has_code


class Sca:
    """SCA customers and the calls of the SCA flow, for one test session."""

    def __init__(
        self,
        customers: MoneyCustomers,
        funding: Funding,
        external_accounts: ExternalAccounts,
        quotes: Quotes,
        history: TransactionHistory,
        *,
        login_body: LoginBody,
        proof: Proof,
    ) -> None:
        self.customers = customers
        self.funding = funding
        self.external_accounts = external_accounts
        self.quotes = quotes
        self.history = history
        self.client = funding.client
        self._login_body = login_body
        self._proof = proof

    # -- customers ---------------------------------------------------------------------------

    def customer(self, currencies: Sequence[str] = ("EUR",)) -> dict[str, Any]:
        """A new APPROVED customer living in the EEA, end-user terms accepted."""
        __tracebackhide__ = True
        return self.customers.approved_customer(
            currencies, extra=EEA_FIELDS, business_info=EEA_BUSINESS_INFO
        )

    def wallet(self, currencies: Sequence[str] = ("EUR",), *, funds: int = 10_000_000) -> Wallet:
        """An SCA customer whose EUR account (``currencies[0]``) is funded, with an external
        account per currency."""
        self.customers.currencies(currencies)  # skips unless the platform supports them
        customer = self.customer(currencies)
        sources = {currencies[0]: self.funding.funded_account(customer, currencies[0], funds)}
        external = self.external_accounts
        destinations = {c: external.external_account(customer["id"], c) for c in currencies}
        return Wallet(customer, sources, destinations)

    # -- execute -----------------------------------------------------------------------------

    def challenged(self, wallet: Wallet, destination: str = "EUR", amount: int = 10_000) -> Any:
        """A new quote of the wallet's, executed: the answer, which must await authorization
        with an ``scaChallenge`` (§3 Quote and transaction)."""
        __tracebackhide__ = True
        quote = self.quotes.quote(wallet.corridor("EUR", destination).body(amount=amount))
        response = self.quotes.execute(quote["id"])
        statement = (
            "execute on a quote of a customer who requires SCA (an EU customer sending EUR) "
            "answers the quote PENDING_AUTHORIZATION with an scaChallenge"
        )
        hint = "the suite's SCA customer has address, region and nationality DE and sends EUR"
        answered = required_json(response, TRANSITION_CLAUSE, statement, hint=hint)
        check(
            answered.get("status") == AWAITING and challenge_of(answered) is not None,
            TRANSITION_CLAUSE,
            statement,
            expected="status PENDING_AUTHORIZATION, scaChallenge object",
            observed=(response.status, answered.get("status"), answered.get("scaChallenge")),
            exchange=response.exchange,
            hint=hint,
        )
        return response.json

    def released_nothing(self, wallet: Wallet, quote: Mapping[str, Any], before: Any) -> None:
        """Nothing left the source and the transaction is not under way (§3: the transfer
        is not released while the quote awaits authorization)."""
        __tracebackhide__ = True
        source = wallet.sources["EUR"]["id"]
        after = self.funding.account_balances(wallet.customer_id, source)
        check(
            after.total == before.total,
            TRANSITION_CLAUSE,
            "while a quote awaits authorization the transfer is not released: the source's "
            "total balance is unchanged",
            expected=before.total,
            observed=after.total,
        )
        transaction = self.history.transaction(wallet.customer_id, str(quote.get("transactionId")))
        status = None if transaction is None else transaction.get("status")
        check(
            status not in ("PROCESSING", "COMPLETED"),
            TRANSITION_CLAUSE,
            "while a quote awaits authorization the transfer is not released: its transaction "
            "is not PROCESSING or COMPLETED",
            observed=status,
        )

    # -- session and proofs (adapter hooks) --------------------------------------------------

    def adapter_login_body(self, customer_id: str) -> dict[str, Any] | None:
        """The adapter's SCA login body for the customer, or None without the hook (where
        :meth:`login_body` would skip the test)."""
        try:
            return self._login_body(customer_id)
        except pytest.skip.Exception:
            return None

    def login_body(self, customer_id: str) -> dict[str, Any]:
        body = self._login_body(customer_id)
        if body is None:
            pytest.skip(
                f"needs adapter hook '{LOGIN_HOOK.__name__}' (the SCA login body is not shown)"
            )
        return body

    def proof(self, customer_id: str, challenge: Mapping[str, Any], *, valid: bool) -> Any:
        body = self._proof(customer_id, challenge, valid)
        if body is None:
            pytest.skip(f"needs adapter hook '{PROOF_HOOK.__name__}' (the SCA proof is not shown)")
        return body

    def login(self, customer_id: str, body: Mapping[str, Any] | None = None) -> ApiResponse:
        """POST /sca/login/complete with the adapter's body (or ``body``)."""
        sent = dict(body) if body is not None else self.login_body(customer_id)
        return self.client.post("/sca/login/complete", json=sent)

    def login_ok(self, customer_id: str) -> dict[str, Any]:
        """Open an SCA session for the customer; the answer."""
        __tracebackhide__ = True
        response = self.login(customer_id)
        check(
            response.status == 200 and response.is_json,
            LOGIN_CLAUSE,
            "POST /sca/login/complete for an SCA customer, with the proof the adapter gives, "
            "completes the login and returns sessionExpiresAt",
            expected=200,
            observed=(response.status, response.content[:300]),
            exchange=response.exchange,
        )
        session: dict[str, Any] = response.json
        return session

    def authorize(self, quote_id: str, body: Mapping[str, Any]) -> ApiResponse:
        """POST /quotes/{quoteId}/authorize."""
        return self.client.post(f"/quotes/{quote_id}/authorize", json=dict(body))

    def authorize_all(self, customer_id: str, quote: Mapping[str, Any]) -> list[dict[str, Any]]:
        """Authorize challenge after challenge with valid proofs until the quote leaves
        PENDING_AUTHORIZATION; every answer, in order."""
        __tracebackhide__ = True
        answers: list[dict[str, Any]] = []
        current: Mapping[str, Any] = quote
        while current.get("status") == AWAITING and len(answers) < MAX_CHALLENGES:
            challenge = challenge_of(current) or {}
            response = self.authorize(
                str(quote["id"]), self.proof(customer_id, challenge, valid=True)
            )
            check(
                response.status == 200 and response.is_json,
                AUTHORIZE_CLAUSE,
                "a valid proof for the quote's challenge, from a customer with an SCA session, "
                "is accepted and the Quote returned",
                expected=200,
                observed=(response.status, response.content[:300]),
                exchange=response.exchange,
            )
            current = response.json
            answers.append(response.json)
        check(
            current.get("status") != AWAITING,
            TRANSITION_CLAUSE,
            "valid proofs authorize the quote's challenges one after the other (conversion and "
            f"payout may each need one); after {MAX_CHALLENGES} it still awaits authorization",
            observed=[(a.get("status"), (challenge_of(a) or {}).get("purpose")) for a in answers],
        )
        return answers
