"""How the suite registers the external accounts money is paid out to (§2 ExternalAccount,
§4 Accounts): ordinary ones, and ones whose payouts fail (adapter).

USD accounts are ``US_ACCOUNT``s; other currencies get an IBAN account whose type and
number field come from the profile's ``[field_names]`` (the interface does not show them).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from conformance.contract import clauses
from conformance.contract.failures import check
from conformance.contract.markers import skip_for_missing_hook
from conformance.exchange.client import ApiResponse, TargetClient
from conformance.ground import hookspecs
from conformance.ground.profile import TargetProfile

__all__ = ["ACCOUNTS_CLAUSE", "ORDINARY_SUFFIX", "ExternalAccounts"]

ACCOUNTS_CLAUSE = clauses.ACCOUNTS_ENDPOINTS
# The interface shows no suffix that guarantees a successful payout (§4 Sandbox behaviours:
# "Outcome of the other suffixes: not shown"); the suite uses identifiers ending in 000
# and skips what needs a success when the target fails those payouts.
ORDINARY_SUFFIX = "000"
US_ROUTING_NUMBER = "021000021"
HOLDER = "Ada Lovelace"


def _number(suffix: str, length: int = 12) -> str:
    """A fresh digit string of ``length`` ending in ``suffix``."""
    head = "".join(random.choice("0123456789") for _ in range(length - len(suffix) - 1))
    return "4" + head + suffix


class ExternalAccounts:
    """Registers customers' external accounts for one test session."""

    def __init__(
        self,
        client: TargetClient,
        profile: TargetProfile,
        failing_number: Callable[[str], str] | None = None,
    ) -> None:
        """``failing_number(currency)`` returns an identifier whose payouts fail (adapter)."""
        self.client = client
        self.profile = profile
        self._failing_number = failing_number

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
            "accountType": self.profile.field_name("iban_account_type"),
            self.profile.field_name("iban_account_number"): iban,
            "accountHolderName": HOLDER,
        }

    def external_body(self, customer_id: str, currency: str, number: str) -> dict[str, Any]:
        """A POST /customers/external-accounts body for a bank account ending in ``number``."""
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
        # not required_json: "200 or 201" and a hint for the IBAN field names
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
