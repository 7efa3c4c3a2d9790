"""Where a quote's money comes from (§1 Funding, §2 Quote ``source``; SANDBOX.md,
"Just-in-time funding, pull sources, UMA and on-chain transfers").

Three kinds of source: an internal account (prefunded: its balance is checked and
debited), an external account with direct pull (``US_ACCOUNT`` only in this sandbox: the
money is pulled from outside, so no balance is checked), and ``REALTIME_FUNDING``
(just-in-time: the money arrives from outside through the quote's payment instructions).
The ledger holds internal accounts only: money from outside enters it as the credit of an
internal destination, and the transaction (its ``source``) records where it came from; a
refund of such a transfer goes back outside.
"""

from __future__ import annotations

import secrets
import uuid
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from reference.accounts import external_accounts
from reference.accounts.internal_accounts import (
    EMBEDDED_WALLET,
    HOLDER,
    SANDBOX_BANK,
    SANDBOX_ROUTING,
    InternalAccount,
)
from reference.customers import store as customer_store
from reference.kernel import currencies
from reference.kernel.errors import ApiError
from reference.kernel.field_checks import text
from reference.kernel.seams import seam
from reference.kernel.services import Services
from reference.kernel.validation import Problems, at


class Quote(Protocol):
    """What the accounts area reads of a quote (``reference.payments.quote_store.Quote``,
    which the area above this one stores)."""

    @property
    def id(self) -> str:
        """The ``Quote:`` id."""
        ...

    @property
    def platform_id(self) -> str:
        """The platform that made the quote."""
        ...

    @property
    def fields(self) -> dict[str, Any]:
        """The quote's API fields."""
        ...

    @property
    def source_account_id(self) -> str:
        """The account the quote debits ("" for a just-in-time source)."""
        ...

    @property
    def destination_account_id(self) -> str:
        """The internal or external account the quote pays ("" for a UMA address)."""
        ...


REALTIME_FUNDING = "REALTIME_FUNDING"
ACCOUNT = "ACCOUNT"
# External account types whose money the sandbox can pull directly (our choice).
PULLABLE_TYPES = frozenset({"US_ACCOUNT"})
REALTIME_PREFIX = "RealtimeFunding:"

IMMEDIATE_REFUSED = seam(
    "funding.immediate_execute_refused",
    "whether POST /quotes refuses immediatelyExecute because the source is just in time"
    " (context: source)",
)
PULL_SCENARIO = seam(
    "funding.pull_scenario",
    "the scenario digits of a quote's pulled external source, '' for other sources"
    " (context: platform_id, fields)",
)
EXECUTE_REFUSED = seam(
    "funding.execute_refused",
    "whether the execute endpoint refuses the quote because it is funded just in time"
    " (context: quote)",
)


@dataclass(frozen=True, slots=True)
class RealtimeSource:
    """A just-in-time source: the customer pays in ``currency`` when the quote is made."""

    customer_id: str
    currency: str
    status: str = "ACTIVE"

    @property
    def id(self) -> str:
        """A stand-in id: no account backs a just-in-time source."""
        return f"{REALTIME_PREFIX}{self.customer_id}:{self.currency}"


def realtime_source(
    services: Services, platform_id: str, problems: Problems, obj: Mapping[str, Any]
) -> RealtimeSource | None:
    """``{sourceType: REALTIME_FUNDING, customerId, currency}``, checked."""
    before = len(problems)
    customer_id = problems.required(obj, "customerId", "source")
    code = problems.required(obj, "currency", "source")
    db = services.db
    if (
        customer_id is not None
        and text(problems, "source.customerId", customer_id) is not None
        and customer_store.load(db, platform_id, customer_id) is None
    ):
        problems.unknown(
            "source.customerId", "UNKNOWN_CUSTOMER", "must be a customer of the platform"
        )
    if (
        code is not None
        and problems.string("source.currency", code) is not None
        and currencies.find(code) is None
    ):
        problems.add("source.currency", "UNSUPPORTED_CURRENCY", "must be a currency we know")
    if len(problems) != before:
        return None
    return RealtimeSource(customer_id=str(customer_id), currency=str(code))


def is_pullable(account: external_accounts.ExternalAccount) -> bool:
    """Whether the sandbox can pull from this external account."""
    return account.account_info.get("accountType") in PULLABLE_TYPES


def check_pullable(problems: Problems, account: external_accounts.ExternalAccount) -> None:
    """Record ``NOT_PULLABLE`` for an external source the sandbox cannot pull from."""
    if not is_pullable(account):
        kinds = ", ".join(sorted(PULLABLE_TYPES))
        problems.conflict(  # the account's type: its state
            at("source", "accountId"), "NOT_PULLABLE", f"only {kinds} can be pulled"
        )


def check_immediately(
    services: Services, problems: Problems, source: Any, immediately: bool | None
) -> None:
    """§4 Quotes rule: ``immediatelyExecute`` only for internal or pullable sources."""
    just_in_time = bool(immediately) and isinstance(source, RealtimeSource)
    if services.settings.seams.apply(IMMEDIATE_REFUSED, just_in_time, source=source):
        problems.add(
            "immediatelyExecute",
            "NOT_ALLOWED",
            "a just-in-time (REALTIME_FUNDING) quote executes when its payment arrives",
        )
    wallet = isinstance(source, InternalAccount) and source.account_type == EMBEDDED_WALLET
    if immediately and wallet:  # its transfers need the signed execute (§5 item 4)
        problems.conflict(
            "immediatelyExecute",
            "WALLET_SIGNATURE_REQUIRED",
            "an embedded wallet sends only through the wallet-signed execute",
        )


def source_json(source: Any) -> dict[str, Any]:
    """The quote's ``source`` object."""
    if isinstance(source, RealtimeSource):
        return {
            "sourceType": REALTIME_FUNDING,
            "customerId": source.customer_id,
            "currency": source.currency,
        }
    return {"sourceType": ACCOUNT, "accountId": source.id}


def is_realtime(fields: Mapping[str, Any]) -> bool:
    """Whether a quote's (or transaction's) fields name a just-in-time source."""
    return bool(fields.get("source", {}).get("sourceType") == REALTIME_FUNDING)


def ledger_source(services: Services, platform_id: str, fields: Mapping[str, Any]) -> str | None:
    """The internal account execution debits and a refund credits; None for a pulled or
    just-in-time source, whose money comes from (and goes back) outside the ledger."""
    account = fields.get("source", {}).get("accountId")
    if account is None:
        return None
    if external_accounts.load_account(services.db, platform_id, str(account)) is not None:
        return None
    return str(account)


def pull_scenario(services: Services, platform_id: str, fields: Mapping[str, Any]) -> str:
    """The scenario digits of a pulled external source ("" for other sources), applied as
    for a payout destination (§4 Sandbox behaviours: "whenever the account is a pull source
    or payout destination"; ``reference.payments.payout_scenarios``): ``005`` keeps the transfer
    ``PROCESSING``, ``003`` settles it later, ``099`` and a ``1xx`` no-match fail it;
    other digits pull at once."""
    account = fields.get("source", {}).get("accountId")
    pulled = (
        None
        if account is None
        else external_accounts.load_account(services.db, platform_id, str(account))
    )
    scenario = "" if pulled is None else pulled.scenario
    return services.settings.seams.apply(
        PULL_SCENARIO, scenario, platform_id=platform_id, fields=fields
    )


def has_balance(services: Services, platform_id: str, fields: Mapping[str, Any]) -> bool:
    """Whether execution must find the funds in the ledger first: only for an internal
    source (a pull fetches them; a just-in-time payment brings them)."""
    return ledger_source(services, platform_id, fields) is not None


def new_reference() -> str:
    """A reference unique to one quote."""
    return "JIT-" + secrets.token_hex(6).upper()


def instructions(currency: str, reference: str) -> list[dict[str, Any]]:
    """How to pay a just-in-time quote in ``currency`` (§2 payment instruction entries): a
    US bank account for USD, a CLABE for MXN, a wallet for USDC, a Bitcoin layer-1 address
    for BTC, an IBAN for any other currency."""
    digits = str(uuid.uuid4().int)
    bank = {"accountHolderName": HOLDER, "bankName": SANDBOX_BANK, "reference": reference}
    info: dict[str, Any]
    if currency == "USD":
        info = {
            "accountType": "US_ACCOUNT",
            "accountNumber": digits[-12:],
            "routingNumber": SANDBOX_ROUTING,
            "accountCategory": "CHECKING",
            **bank,
        }
    elif currency == "MXN":
        info = {"accountType": "CLABE_ACCOUNT", "clabe": "002010" + digits[-12:], **bank}
    elif currency == "USDC":
        address = "0x" + uuid.uuid4().hex.ljust(40, "0")
        info = {"accountType": "WALLET", "address": address, "assetType": "USDC"}
        info["reference"] = reference
    elif currency == "BTC":
        address = "bc1q" + secrets.token_hex(19)
        info = {"accountType": "BITCOIN_L1", "address": address, "assetType": "BTC"}
        info["reference"] = reference
    else:
        info = {"accountType": "IBAN_ACCOUNT", "iban": "GB00SBOX" + digits[-14:], **bank}
    notes = f"Pay the quote's total sending amount and include the reference {reference}."
    return [{"instructionsNotes": notes, "accountOrWalletInfo": info}]


def quote_instructions(source: Any) -> dict[str, Any]:
    """The ``paymentInstructions`` of a new quote with this source (none unless JIT)."""
    if not isinstance(source, RealtimeSource):
        return {}
    return {"paymentInstructions": instructions(source.currency, new_reference())}


def reference_of(quote: Quote) -> str | None:
    """The reference a payment must carry to execute the quote."""
    for entry in quote.fields.get("paymentInstructions") or ():
        value = entry.get("accountOrWalletInfo", {}).get("reference")
        if value:
            return str(value)
    return None


def refuse_execute(services: Services, quote: Quote) -> None:
    """§4 Quotes rule 2: the execute endpoint never executes a just-in-time quote."""
    if services.settings.seams.apply(EXECUTE_REFUSED, is_realtime(quote.fields), quote=quote):
        raise ApiError(
            409,
            "QUOTE_NOT_EXECUTABLE",
            f"{quote.id} is funded just in time: paying its paymentInstructions (with the "
            "reference) executes it; execute must not be called",
        )
