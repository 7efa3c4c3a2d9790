"""External accounts (§2 ExternalAccount, §4 ``POST /customers/external-accounts``):
validation, storage, the payout scenario, rendering and the routes (SANDBOX.md,
"External accounts").

Accounts are ``ACTIVE`` at once, except that an identifier ending in ``008`` starts
``PENDING_OWNERSHIP_VERIFICATION`` (``reference.accounts.ownership`` verifies it). Account numbers
are not validated beyond being present strings (§4 Sandbox behaviours). The last three
characters of the primary identifier (the username part when it has a domain part) are
stored as the payout scenario: ``003`` slow (settles at once in this slice), ``005``
timeout (stays ``PROCESSING``), ``099`` returned (our choice: ``FAILED`` with
``PAYOUT_RETURNED``, refunded). ``GET /customers/external-accounts?customerId=`` lists them
as ``{"data": [...]}``, a convenience the interface does not show.
"""

from __future__ import annotations

import sqlite3
import uuid
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from starlette.responses import JSONResponse, Response

from reference.customers.store import load, load_or_404
from reference.kernel import currencies, pages
from reference.kernel.clock import iso, utc_now
from reference.kernel.db import Database, from_json, to_json
from reference.kernel.field_checks import text
from reference.kernel.routing import ApiRequest, Operation, api_route
from reference.kernel.seams import seam
from reference.kernel.validation import Problems, at

ACTIVE = "ACTIVE"
PENDING_OWNERSHIP = "PENDING_OWNERSHIP_VERIFICATION"
OWNERSHIP_PENDING = "008"  # starts PENDING_OWNERSHIP_VERIFICATION (our choice; ``ownership``)
THRESHOLD_MAJOR_UNITS = 1000  # a pending account receives less than this (our choice)
SLOW = "003"
TIMEOUT = "005"
RETURNED = "099"
CREATED_BODY = seam(
    "external_accounts.created_body",
    "the ExternalAccount body POST /customers/external-accounts answers 201 (context: account)",
)
# accountType -> its required fields; the first is the primary identifier (§4 Sandbox
# behaviours: account number, IBAN, CLABE, wallet address).
ACCOUNT_TYPES: Mapping[str, tuple[str, ...]] = {
    "US_ACCOUNT": ("accountNumber", "routingNumber", "accountCategory", "accountHolderName"),
    "IBAN_ACCOUNT": ("iban",),
    "CLABE_ACCOUNT": ("clabe",),
    "WALLET": ("address", "network"),
}
# The payment rail a quote names when the platform omits ``paymentRail`` (§4: "default
# chosen by the service"); a wallet uses its network.
DEFAULT_RAIL = {"US_ACCOUNT": "ACH", "IBAN_ACCOUNT": "SEPA_INSTANT", "CLABE_ACCOUNT": "SPEI"}


@dataclass(frozen=True, slots=True)
class ExternalAccount:
    """One external account as stored."""

    id: str
    platform_id: str
    customer_id: str
    currency: str
    account_info: dict[str, Any]
    scenario: str
    status: str
    created_at: str
    updated_at: str

    @property
    def is_active(self) -> bool:
        """Whether payouts may go to it."""
        return self.status == ACTIVE

    @property
    def default_rail(self) -> str:
        """The rail a payout uses when the quote names none."""
        kind = self.account_info["accountType"]
        return DEFAULT_RAIL.get(kind) or str(self.account_info.get("network", "INTERNAL"))

    def as_json(self) -> dict[str, Any]:
        """The ExternalAccount response body."""
        return {
            "id": self.id,
            "customerId": self.customer_id,
            "status": self.status,
            "currency": self.currency,
            "accountInfo": self.account_info,
            "createdAt": self.created_at,
            "updatedAt": self.updated_at,
        }


def scenario_of(account_info: Mapping[str, Any]) -> str:
    """The last three characters of the primary identifier's username part."""
    fields = ACCOUNT_TYPES[account_info["accountType"]]
    identifier = str(account_info[fields[0]])
    return identifier.split("@", 1)[0][-3:]


def _account(row: sqlite3.Row) -> ExternalAccount:
    return ExternalAccount(
        id=row["id"],
        platform_id=row["platform_id"],
        customer_id=row["customer_id"],
        currency=row["currency"],
        account_info=from_json(row["account_info"]),
        scenario=row["scenario"],
        status=row["status"],
        created_at=row["created_at"],
        updated_at=row["updated_at"],
    )


def load_account(db: Database, platform_id: str, account_id: str) -> ExternalAccount | None:
    """The platform's external account with this id; another platform's is None too."""
    row = db.fetchone(
        "SELECT * FROM external_accounts WHERE id = ? AND platform_id = ?",
        (account_id, platform_id),
    )
    return None if row is None else _account(row)


def over_threshold(account: object, receiving: str, amount: int) -> str | None:
    """Why a payout of ``amount`` (smallest units of ``receiving``) may not go to a
    ``PENDING_OWNERSHIP_VERIFICATION`` account (§3: still usable below regulatory
    thresholds), or None when it may: below ``THRESHOLD_MAJOR_UNITS`` it may."""
    if not isinstance(account, ExternalAccount) or account.status != PENDING_OWNERSHIP:
        return None
    decimals = currencies.CURRENCIES[receiving].decimals
    if amount < THRESHOLD_MAJOR_UNITS * 10**decimals:
        return None
    return f"an account pending ownership verification receives less than {THRESHOLD_MAJOR_UNITS}"


def set_status(db: Database, account: ExternalAccount, status: str, stamp: str) -> ExternalAccount:
    """Store a new status with ``updatedAt`` = ``stamp`` (ownership verification)."""
    db.execute(
        "UPDATE external_accounts SET status = ?, updated_at = ? WHERE id = ?",
        (status, stamp, account.id),
    )
    return replace(account, status=status, updated_at=stamp)


def _validate(request: ApiRequest) -> tuple[str, str, dict[str, Any]]:
    """``(customerId, currency, accountInfo)``, or every invalid field at once."""
    body, problems = request.body, Problems()
    for key in ("customerId", "currency", "accountInfo"):
        problems.required(body, key, "")
    customer_id = body.get("customerId")
    if (
        customer_id is not None
        and text(problems, "customerId", customer_id) is not None
        and load(request.services.db, request.platform.id, customer_id) is None
    ):
        problems.unknown("customerId", "UNKNOWN_CUSTOMER", "must be a customer of the platform")
    code = body.get("currency")
    if (
        code is not None
        and problems.string("currency", code) is not None
        and currencies.find(code) is None
    ):
        problems.add("currency", "UNSUPPORTED_CURRENCY", "must be a currency code we know")
    info = body.get("accountInfo")
    if info is not None:
        info = problems.object("accountInfo", info)
    if info is not None:
        kind = problems.required(info, "accountType", "accountInfo")
        if kind is not None:
            kind = problems.one_of(at("accountInfo", "accountType"), kind, ACCOUNT_TYPES)
        for key in ACCOUNT_TYPES.get(kind or "", ()):
            value = problems.required(info, key, "accountInfo")
            if value is not None:
                text(problems, at("accountInfo", key), value)
    problems.raise_if_any()
    assert isinstance(info, dict)
    return str(customer_id), str(code), info


def create_external_account(request: ApiRequest) -> Response:
    """``POST /customers/external-accounts`` → 201 ExternalAccount."""
    db = request.services.db
    customer_id, code, info = _validate(request)
    now = iso(utc_now())
    account = ExternalAccount(
        id=f"ExternalAccount:{uuid.uuid4()}",
        platform_id=request.platform.id,
        customer_id=customer_id,
        currency=code,
        account_info=info,
        scenario=scenario_of(info),
        status=PENDING_OWNERSHIP if scenario_of(info) == OWNERSHIP_PENDING else ACTIVE,
        created_at=now,
        updated_at=now,
    )
    with db.transaction():
        db.execute(
            """INSERT INTO external_accounts (id, platform_id, customer_id, currency,
               account_info, scenario, status, created_at, updated_at)
               VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)""",
            (
                account.id,
                account.platform_id,
                account.customer_id,
                account.currency,
                to_json(account.account_info),
                account.scenario,
                account.status,
                now,
                now,
            ),
        )
    body = request.services.settings.seams.apply(CREATED_BODY, account.as_json(), account=account)
    return JSONResponse(body, status_code=201)


def list_external_accounts(request: ApiRequest) -> Response:
    """``GET /customers/external-accounts?customerId=&limit=&cursor=`` → a page; without
    ``customerId``, every external account of the platform."""
    db = request.services.db
    platform_id = request.platform.id
    customer_id = request.query.get("customerId") or None
    if customer_id is None:
        rows = db.fetchall(
            "SELECT * FROM external_accounts WHERE platform_id = ? ORDER BY seq", (platform_id,)
        )
    else:
        load_or_404(db, platform_id, customer_id)
        rows = db.fetchall(
            """SELECT * FROM external_accounts WHERE platform_id = ? AND customer_id = ?
               ORDER BY seq""",
            (platform_id, customer_id),
        )
    answer = pages.page(
        request.services.settings,
        request.query,
        [_account(row) for row in rows],
        record_id=lambda a: a.id,
        render=lambda a: a.as_json(),
    )
    return JSONResponse(answer)


ROUTES = [
    api_route(
        "/customers/external-accounts",
        Operation("POST", create_external_account, body=True),
        Operation("GET", list_external_accounts),
    ),
]
