"""Transaction size and daily volume limits (§8 Limits, §7 Errors; SANDBOX.md, "Limits,
refused rates and compliance holds").

The interface enforces both but publishes no values. The sandbox's, in US-dollar cents
(other currencies at the sandbox's fixed rates, ``reference.payments.rates``):

- size: a quote's ``totalSendingAmount`` may be at most ``SIZE_LIMIT_USD_CENTS``; above it
  ``POST /quotes`` answers ``400 TRANSACTION_SIZE_LIMIT_EXCEEDED``;
- daily volume: what a customer's internal accounts are debited by executed quotes since
  00:00 UTC, plus the quote at hand, may be at most ``DAILY_LIMIT_USD_CENTS``; above it
  ``POST /quotes`` and ``POST /quotes/{id}/execute`` answer ``429
  DAILY_VOLUME_LIMIT_EXCEEDED`` with ``Retry-After`` (seconds to the next UTC midnight).
  The platform's own account is not limited.

``GET /sandbox/limits/{currency}`` tells the values in a currency's smallest unit (the
reference adapter's ``pytest_conformance_transaction_limits``).
"""

from __future__ import annotations

from datetime import datetime, time, timedelta
from decimal import Decimal
from typing import TYPE_CHECKING

from starlette.responses import JSONResponse, Response

from reference.kernel import currencies
from reference.kernel.clock import iso, utc_now
from reference.kernel.db import Database
from reference.kernel.errors import ApiError
from reference.kernel.routing import ApiRequest, Operation, api_route
from reference.kernel.seams import seam
from reference.kernel.services import Services
from reference.payments import rates

if TYPE_CHECKING:
    from reference.payments.quote_store import Quote

# Far above every amount the suite's other tests move (at most 50,000.00 locked, a few
# hundred thousand dollars a day per customer), reachable with a few fundings.
SIZE_LIMIT_USD_CENTS = 10_000_000  # $100,000.00 per transaction
DAILY_LIMIT_USD_CENTS = 50_000_000  # $500,000.00 per customer and UTC day
_DEBIT = "DEBIT"  # reference.accounts.ledger.DEBIT: the source of an executed quote

SIZE_REFUSAL = seam(
    "limits.size_refusal",
    "the 400 TRANSACTION_SIZE_LIMIT_EXCEEDED refusing a quote, or None when it is within the"
    " limit (context: currency, total_sending)",
)
DAILY_REFUSAL = seam(
    "limits.daily_refusal",
    "the 429 DAILY_VOLUME_LIMIT_EXCEEDED refusing a customer's quote or execution, or None"
    " when it is within the limit (context: platform_id, customer_id, currency, amount)",
)


def _scale(currency: str) -> Decimal:
    """Smallest units of ``currency`` per US-dollar cent."""
    decimals = currencies.CURRENCIES[currency].decimals
    return rates.UNITS_PER_USD[currency] * Decimal(10) ** decimals / 100


def in_currency(usd_cents: int, currency: str) -> int:
    """A limit in ``currency``'s smallest unit: the largest amount not above it."""
    return int(usd_cents * _scale(currency))  # exact: the scale is a short decimal


def _usd_cents(amount: int, currency: str) -> Decimal:
    return Decimal(amount) / _scale(currency)


def _priced(currency: str) -> bool:
    return currency in currencies.CURRENCIES and rates.has_rate(currency)


def check_size(services: Services, currency: str, total_sending: int) -> None:
    """400 ``TRANSACTION_SIZE_LIMIT_EXCEEDED`` when a quote sends more than the limit."""
    if not _priced(currency):
        return
    limit = in_currency(SIZE_LIMIT_USD_CENTS, currency)
    refusal: ApiError | None = None
    if total_sending > limit:
        refusal = ApiError(
            400,
            "TRANSACTION_SIZE_LIMIT_EXCEEDED",
            f"a transaction sends at most {limit} {currency} (smallest unit); this one sends"
            f" {total_sending} (§8 Limits)",
        )
    refusal = services.settings.seams.apply(
        SIZE_REFUSAL, refusal, currency=currency, total_sending=total_sending
    )
    if refusal is not None:
        raise refusal


def _midnight(now: datetime) -> datetime:
    return datetime.combine(now.date(), time(0), tzinfo=now.tzinfo)


def volume_today(db: Database, platform_id: str, customer_id: str, now: datetime) -> Decimal:
    """US-dollar cents debited from the customer's internal accounts since 00:00 UTC."""
    rows = db.fetchall(
        """SELECT l.amount AS amount, a.currency AS currency
           FROM ledger_entries l JOIN internal_accounts a ON a.id = l.account_id
           WHERE a.platform_id = ? AND a.customer_id = ? AND l.kind = ? AND l.created_at >= ?""",
        (platform_id, customer_id, _DEBIT, iso(_midnight(now))),
    )
    return sum(
        (_usd_cents(-int(r["amount"]), r["currency"]) for r in rows if _priced(r["currency"])),
        Decimal(0),
    )


def check_daily(
    services: Services, platform_id: str, customer_id: str | None, currency: str, amount: int
) -> None:
    """429 ``DAILY_VOLUME_LIMIT_EXCEEDED`` when ``amount`` would take the customer's
    volume today past the limit. Call inside the DB transaction that debits."""
    if customer_id is None or not _priced(currency):
        return
    refusal = services.settings.seams.apply(
        DAILY_REFUSAL,
        _daily_refusal(services.db, platform_id, customer_id, currency, amount),
        platform_id=platform_id,
        customer_id=customer_id,
        currency=currency,
        amount=amount,
    )
    if refusal is not None:
        raise refusal


def _daily_refusal(
    db: Database, platform_id: str, customer_id: str, currency: str, amount: int
) -> ApiError | None:
    """The 429 for ``amount`` past the customer's daily volume, or None within it."""
    now = utc_now()
    used = volume_today(db, platform_id, customer_id, now)
    if used + _usd_cents(amount, currency) <= DAILY_LIMIT_USD_CENTS:
        return None
    retry = _midnight(now) + timedelta(days=1) - now
    return ApiError(
        429,
        "DAILY_VOLUME_LIMIT_EXCEEDED",
        f"{customer_id} may send {in_currency(DAILY_LIMIT_USD_CENTS, currency)} {currency}"
        f" (smallest unit) a day; {used:.0f} US cents are used today (§8 Limits)",
        headers={"Retry-After": str(max(int(retry.total_seconds()), 1))},
    )


def check_quote(
    services: Services, platform_id: str, customer_id: str | None, currency: str, amount: int
) -> None:
    """Both limits for a new quote sending ``amount`` of ``currency``: size, then volume."""
    check_size(services, currency, amount)
    check_daily(services, platform_id, customer_id, currency, amount)


def check_execution(services: Services, quote: Quote) -> None:
    """The daily volume for executing ``quote``; inside the DB transaction that debits."""
    sending = quote.fields["sendingCurrency"]
    amount = int(quote.fields["totalSendingAmount"])
    check_daily(services, quote.platform_id, quote.customer_id, str(sending["code"]), amount)


def describe_limits(request: ApiRequest) -> Response:
    """``GET /sandbox/limits/{currency}`` → ``{currency, transactionSize, dailyVolume}`` in
    the currency's smallest unit."""
    currency = str(request.path_params["currency"]).upper()
    if not _priced(currency):
        raise ApiError(404, "NOT_FOUND", f"the sandbox prices no currency {currency}")
    return JSONResponse(
        {
            "currency": currency,
            "transactionSize": in_currency(SIZE_LIMIT_USD_CENTS, currency),
            "dailyVolume": in_currency(DAILY_LIMIT_USD_CENTS, currency),
        }
    )


ROUTES = [api_route("/sandbox/limits/{currency}", Operation("GET", describe_limits))]
