"""Validation of ``POST /quotes`` (§4 Quotes and transactions; SANDBOX.md, "Quotes").

Every field is checked, the accounts are looked up and the quote is priced before one
answer lists every problem: ``404`` for unknown accounts, ``400 INVALID_INPUT`` for invalid
fields (§7), ``409 CONFLICT`` for what the accounts' or the platform's state refuses (an
account not active, of another owner, not pullable; no rate; a fee that eats the amount).
Then the customer: not ``APPROVED`` is ``409 CUSTOMER_NOT_APPROVED``; on unregulated
platforms, no end-user terms on file is ``409 END_USER_TERMS_NOT_ACCEPTED`` (§4 Customers
and verification; §7 names the code, not its status). A customer's accounts
are ``PENDING`` until it is approved, so their status is left to that 409 rather than
reported as a field.

The source is an internal account, a pullable external account or ``REALTIME_FUNDING``
(``reference.accounts.funding``); the destination is an internal or external account of the same
owner (customer, or the platform itself), or a UMA address (``reference.payments.uma``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from reference.accounts import external_accounts
from reference.accounts import states as account_states
from reference.accounts.funding import (
    RealtimeSource,
    check_immediately,
    check_pullable,
    realtime_source,
)
from reference.accounts.internal_accounts import PENDING, InternalAccount
from reference.accounts.internal_accounts import load as load_internal
from reference.configuration.store import load_config
from reference.customers import agreements
from reference.customers import store as customer_store
from reference.kernel import currencies
from reference.kernel.currencies import Currency
from reference.kernel.errors import ApiError
from reference.kernel.field_checks import text
from reference.kernel.seams import seam
from reference.kernel.services import Services
from reference.kernel.validation import Problems, at
from reference.payments import limits, rates
from reference.payments.pricing import Price, PricingError, fee_schedule, price
from reference.payments.uma import UmaDestination, bind
from reference.payments.uma import check_amount as check_uma_amount
from reference.payments.uma import destination as uma_destination

REQUIRED = ("source", "destination", "lockedCurrencySide", "lockedCurrencyAmount")
_OPTIONAL = (
    "immediatelyExecute",
    "description",
    "remittanceInformation",
    "purposeOfPayment",
    "platformFeeOverride",
)
SIDES = ("SENDING", "RECEIVING")
MAX_AMOUNT = 10**15  # keeps every sum inside SQLite's 64-bit integers
MAX_REMITTANCE = 80  # §8 Limits
MAX_BPS = 10_000
INTERNAL_RAIL = "INTERNAL"
Account = InternalAccount | external_accounts.ExternalAccount | RealtimeSource | UmaDestination

OWNERSHIP_REFUSAL = seam(
    "quotes.ownership_refusal",
    "why the destination, pending ownership verification, may not receive this payout, or"
    " None when it may (context: destination, receiving currency code, amount received)",
)


@dataclass(frozen=True, slots=True)
class ValidQuote:
    """A request that passed every check, priced."""

    source: Account
    destination: Account
    payment_rail: str
    side: str
    amount: int
    immediately: bool
    description: str | None
    texts: dict[str, str]  # remittanceInformation and purposeOfPayment, when sent
    customer: customer_store.Customer | None
    sending: Currency
    receiving: Currency
    price: Price

    @property
    def destination_id(self) -> str:
        """The destination account's id."""
        return self.destination.id

    @property
    def customer_id(self) -> str | None:
        """The owner of the source; None for the platform's own account."""
        return self.source.customer_id

    @property
    def platform_customer_id(self) -> str | None:
        """The platform's identifier of the customer, if it gave one."""
        if self.customer is None:
            return None
        value = self.customer.fields.get("platformCustomerId")
        return value if isinstance(value, str) else None


def _account_id(problems: Problems, obj: Mapping[str, Any], path: str) -> str | None:
    value = problems.required(obj, "accountId", path)
    return None if value is None else text(problems, at(path, "accountId"), value)


def _source(services: Services, platform_id: str, problems: Problems, value: Any) -> Any:
    obj = None if value is None else problems.object("source", value)
    if obj is None:
        return None
    kind = problems.required(obj, "sourceType", "source")
    if kind == "REALTIME_FUNDING":
        return realtime_source(services, platform_id, problems, obj)
    if kind is not None:
        problems.one_of("source.sourceType", kind, ("ACCOUNT", "REALTIME_FUNDING"))
    if kind != "ACCOUNT" or (account_id := _account_id(problems, obj, "source")) is None:
        return None
    account: Account | None = load_internal(services.db, platform_id, account_id)
    if account is None:
        account = external_accounts.load_account(services.db, platform_id, account_id)
        if account is None:
            problems.unknown("source.accountId", "UNKNOWN_ACCOUNT", "must be an account we know")
        else:
            check_pullable(problems, account)
    return account


def _destination(
    services: Services, platform_id: str, problems: Problems, value: Any
) -> tuple[Account | None, str | None]:
    obj = None if value is None else problems.object("destination", value)
    if obj is None:
        return None, None
    kind = problems.required(obj, "destinationType", "destination")
    if kind == "UMA_ADDRESS":
        return uma_destination(problems, obj), None
    if kind is not None:
        problems.one_of("destination.destinationType", kind, ("ACCOUNT", "UMA_ADDRESS"))
    rail = obj.get("paymentRail")
    if "paymentRail" in obj:  # null included: it is not a rail
        rail = text(problems, "destination.paymentRail", rail)
    if kind != "ACCOUNT" or (account_id := _account_id(problems, obj, "destination")) is None:
        return None, rail
    account: Account | None = load_internal(services.db, platform_id, account_id)
    if account is None:
        account = external_accounts.load_account(services.db, platform_id, account_id)
    if account is None:
        problems.unknown("destination.accountId", "UNKNOWN_ACCOUNT", "must be an account we know")
    return account, rail


def _override(problems: Problems, value: Any) -> dict[str, int] | None:
    obj = problems.object("platformFeeOverride", value)
    if obj is None:
        return None
    before = len(problems)
    result: dict[str, int] = {}
    for key, maximum in (("variableRateBps", MAX_BPS), ("fixedFee", MAX_AMOUNT)):
        if key in obj:  # null included: it is not an integer
            path = at("platformFeeOverride", key)
            checked = problems.integer(path, obj[key], minimum=0, maximum=maximum)
            result[key] = checked or 0
    if not result:
        problems.add("platformFeeOverride", "REQUIRED", "variableRateBps or fixedFee")
    return result if len(problems) == before else None


def _usable(account: Account, customer: customer_store.Customer | None) -> bool:
    """Active, or pending only because its customer is not approved yet (that is the 409)."""
    if account.status in ("ACTIVE", external_accounts.PENDING_OWNERSHIP):  # below a threshold
        return True
    return account.status == PENDING and customer is not None and customer.status != "APPROVED"


def _texts(problems: Problems, body: Mapping[str, Any]) -> dict[str, str]:
    texts: dict[str, str] = {}
    remittance = body.get("remittanceInformation")
    if remittance is not None and problems.string("remittanceInformation", remittance) is not None:
        if len(remittance) > MAX_REMITTANCE:
            problems.add("remittanceInformation", "MAX_LENGTH", "at most 80 characters")
        texts["remittanceInformation"] = remittance
    purpose = body.get("purposeOfPayment")
    if purpose is not None and text(problems, "purposeOfPayment", purpose) is not None:
        texts["purposeOfPayment"] = purpose
    return texts


def _account_problems(
    services: Services,
    platform_id: str,
    problems: Problems,
    body: Mapping[str, Any],
    source: Any,
    destination: Account | None,
) -> customer_store.Customer | None:
    """The problems of the accounts' states, owners and rates; the source's customer."""
    customer = None
    if source is not None and source.customer_id is not None:
        customer = customer_store.load(services.db, platform_id, source.customer_id)
    if source is not None:
        may_move = customer is None or customer.status == customer_store.APPROVED
        if body.get("platformFeeOverride") is not None and source.currency != "USD" and may_move:
            # §8 states the rule: invalid input (400). An account's currency is its state, so
            # it is judged once the customer may move money at all; before, the customer's
            # 409 CUSTOMER_NOT_APPROVED answers. A REALTIME_FUNDING source's currency is in
            # the body, where the served document declares the rule.
            problems.add("platformFeeOverride", "USD_SOURCE_ONLY", "USD source currency only")
        sends = account_states.sends(services.settings, source.status)
        if not (_usable(source, customer) or sends):
            problems.conflict("source.accountId", "ACCOUNT_NOT_ACTIVE", f"is {source.status}")
    if source is not None and destination is not None:
        if destination.id == source.id:
            problems.conflict(
                "destination.accountId", "SAME_ACCOUNT", "must differ from the source"
            )
        elif destination.customer_id != source.customer_id:
            problems.conflict(
                "destination.accountId", "OTHER_CUSTOMER", "must be the source's owner's"
            )
        elif not (
            _usable(destination, customer)
            or account_states.receives(services.settings, destination.status)
        ):
            problems.conflict(
                "destination.accountId", "ACCOUNT_NOT_ACTIVE", f"is {destination.status}"
            )
        if not (rates.has_rate(source.currency) and rates.has_rate(destination.currency)):
            problems.conflict("destination.accountId", "NO_RATE", "no rate for this currency pair")
    return customer


def validate(services: Services, platform_id: str, body: Mapping[str, Any]) -> ValidQuote:
    """The priced request, or the errors of §7 in the order the module docstring gives."""
    problems = Problems()
    for key in REQUIRED:
        problems.required(body, key, "")
    problems.no_nulls(body, _OPTIONAL, "")
    source = _source(services, platform_id, problems, body.get("source"))
    destination, rail = _destination(services, platform_id, problems, body.get("destination"))
    destination = bind(destination, source)  # a UMA address pays in the source's terms
    side = body.get("lockedCurrencySide")
    if side is not None:
        side = problems.one_of("lockedCurrencySide", side, SIDES)
    amount = body.get("lockedCurrencyAmount")
    if amount is not None:
        amount = problems.integer("lockedCurrencyAmount", amount, minimum=1, maximum=MAX_AMOUNT)
    immediately = body.get("immediatelyExecute")
    if immediately is not None:
        immediately = problems.boolean("immediatelyExecute", immediately)
    check_immediately(services, problems, source, immediately)
    check_uma_amount(services, platform_id, problems, destination, amount)
    description = body.get("description")
    if description is not None:
        description = problems.string("description", description)
    texts = _texts(problems, body)
    override = body.get("platformFeeOverride")
    if override is not None:
        override = _override(problems, override)
    customer = _account_problems(services, platform_id, problems, body, source, destination)
    problems.raise_if_any()
    assert source is not None and destination is not None
    assert isinstance(side, str) and isinstance(amount, int)
    sending = currencies.CURRENCIES[source.currency]
    receiving = currencies.CURRENCIES[destination.currency]
    fee_configs = load_config(services.db, platform_id).fee_configs
    fees = fee_schedule(sending.code, receiving.code, fee_configs, override)
    try:
        pulled = isinstance(source, external_accounts.ExternalAccount)
        priced = price(side, amount, sending, receiving, fees, services.settings, pulled=pulled)
    except PricingError as exc:
        problems.conflict("lockedCurrencyAmount", "AMOUNT_TOO_SMALL", str(exc))
        problems.raise_if_any()
        raise
    over = services.settings.seams.apply(
        OWNERSHIP_REFUSAL,
        external_accounts.over_threshold(destination, receiving.code, priced.total_receiving),
        destination=destination,
        receiving=receiving.code,
        amount=priced.total_receiving,
    )
    if over is not None:
        problems.conflict("destination.accountId", "OWNERSHIP_NOT_VERIFIED", over)
        problems.raise_if_any()
    _check_customer(customer, services)
    limits.check_quote(
        services, platform_id, source.customer_id, sending.code, priced.total_sending
    )
    if rail is None:
        rail = INTERNAL_RAIL
        if isinstance(destination, external_accounts.ExternalAccount):
            rail = destination.default_rail
    return ValidQuote(
        source=source,
        destination=destination,
        payment_rail=rail,
        side=side,
        amount=amount,
        immediately=bool(immediately),
        description=description,
        texts=texts,
        customer=customer,
        sending=sending,
        receiving=receiving,
        price=priced,
    )


def _check_customer(customer: customer_store.Customer | None, services: Services) -> None:
    """409 ``CUSTOMER_NOT_APPROVED``, then 409 ``END_USER_TERMS_NOT_ACCEPTED``."""
    if customer is None:  # the platform's own account
        return
    if customer.status != customer_store.APPROVED:
        raise ApiError(
            409,
            "CUSTOMER_NOT_APPROVED",
            f"{customer.id} is {customer.status}; money movement unlocks at APPROVED (§3)",
        )
    if not services.settings.regulated and agreements.END_USER_TERMS not in customer.consents:
        raise ApiError(  # the customer's state (§7 gives the code no status)
            409,
            "END_USER_TERMS_NOT_ACCEPTED",
            f"{customer.id} has no end-user terms acceptance on file (§4 Customers)",
        )
