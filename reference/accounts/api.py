"""Internal account endpoints: ``GET /customers/internal-accounts`` (§4 Accounts) and the
sandbox's ``POST /sandbox/internal-accounts/{accountId}/fund`` (§4 sandbox endpoints).

The list answers a page of InternalAccounts (``kernel/pages.py``): a customer's accounts
with ``customerId``, the platform's own without it. Funding credits the ledger at once and
answers the account; an account that is not ``ACTIVE`` cannot receive (§3 Internal
account) and answers ``409 ACCOUNT_CANNOT_RECEIVE``. Funding a ``RULE_BASED`` account
triggers its sweep (``rule_based.sweep``) in the same DB transaction.
"""

from __future__ import annotations

from typing import Any

from starlette.responses import JSONResponse, Response

from reference.accounts import internal_accounts, ledger, rule_based
from reference.accounts import states as account_states
from reference.customers.store import load_or_404
from reference.kernel import pages
from reference.kernel.routing import ApiRequest, Operation, api_route
from reference.kernel.seams import seam
from reference.kernel.validation import Problems

# A single funding is capped so a typo cannot overflow SQLite's 64-bit sums.
MAX_FUNDING = 10**15

LISTED_BODY = seam(
    "internal_accounts.listed_body",
    "an InternalAccount body in the GET /customers/internal-accounts list (context: account)",
)


def list_internal_accounts(request: ApiRequest) -> Response:
    """``GET /customers/internal-accounts?customerId=&limit=&cursor=`` → a page; an unknown
    customer (or another platform's) is ``404 NOT_FOUND``."""
    db = request.services.db
    platform_id = request.platform.id
    customer_id = request.query.get("customerId") or None
    if customer_id is not None:
        load_or_404(db, platform_id, customer_id)
    accounts = internal_accounts.owned_by(db, platform_id, customer_id)
    seams = request.services.settings.seams
    render = internal_accounts.render
    answer = pages.page(
        request.services.settings,
        request.query,
        accounts,
        record_id=lambda a: a.id,
        render=lambda a: seams.apply(LISTED_BODY, render(db, a), account=a),
    )
    return JSONResponse(answer)


def read_amount(body: dict[str, Any], problems: Problems | None = None) -> int:
    """The body's ``amount`` of a sandbox deposit: an integer from 1 to ``MAX_FUNDING``.

    With ``problems`` the caller collects further field errors and raises them together;
    without, any error is raised here."""
    collected = problems if problems is not None else Problems()
    amount = collected.required(body, "amount", "")
    if amount is not None:
        amount = collected.integer("amount", amount, minimum=1, maximum=MAX_FUNDING)
    if problems is None:
        collected.raise_if_any()
    return amount if isinstance(amount, int) else 0


def fund_internal_account(request: ApiRequest) -> Response:
    """``POST /sandbox/internal-accounts/{accountId}/fund {amount}`` → the credited
    InternalAccount."""
    services = request.services
    db = services.db
    amount = read_amount(request.body)
    account_id = request.path_params["accountId"]
    with db.transaction():
        account = account_states.receiving_account(services, request.platform.id, account_id)
        ledger.post(db, account.id, amount, ledger.FUNDING)
        rule_based.sweep(request.services, account, amount)  # a rule-based account sweeps
        body = internal_accounts.render(db, account)
    return JSONResponse(body)


ROUTES = [
    api_route("/customers/internal-accounts", Operation("GET", list_internal_accounts)),
    api_route(
        "/sandbox/internal-accounts/{accountId}/fund",
        Operation("POST", fund_internal_account, body=True),
    ),
]
