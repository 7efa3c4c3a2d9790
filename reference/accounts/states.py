"""Internal-account states after provisioning (§3 Internal account; SANDBOX.md,
"Internal-account states"): frozen, closed and failed accounts, and who may move money.

The interface names the transitions but shows none of their triggers, so the sandbox has
one endpoint per transition, each allowed only from the state the interface names:

- ``POST /sandbox/internal-accounts/{accountId}/freeze``: ``ACTIVE`` → ``FROZEN`` (a
  compliance or fraud signal at the service);
- ``POST /sandbox/internal-accounts/{accountId}/close``: ``ACTIVE`` → ``CLOSED`` (the
  customer initiates closing; the balance stays on the ledger, it is not paid out);
- ``POST /sandbox/internal-accounts/{accountId}/fail-provisioning``: ``PENDING`` →
  ``FAILED`` (the underlying account cannot be created; approving the customer later leaves
  it ``FAILED``).

Each answers ``200`` with the InternalAccount; an unknown account ``404 NOT_FOUND``; any
other starting state ``409 ACCOUNT_STATE_CONFLICT`` (e.g. closing a ``FROZEN`` account).
Only ``ACTIVE`` accounts send or receive: :func:`sends` and :func:`receives` are the one
place that rule lives; quote validation, execution, funding and incoming payments ask them.
"""

from __future__ import annotations

from collections.abc import Callable

from starlette.responses import JSONResponse, Response

from reference.accounts import internal_accounts
from reference.accounts.funding import Quote
from reference.kernel.clock import later_than
from reference.kernel.errors import ApiError
from reference.kernel.routing import ApiRequest, Operation, api_route
from reference.kernel.seams import seam
from reference.kernel.services import Services
from reference.kernel.settings import ServerSettings

ACTIVE = internal_accounts.ACTIVE
PENDING = internal_accounts.PENDING
FROZEN = "FROZEN"
CLOSED = "CLOSED"
FAILED = "FAILED"
# action in the sandbox path -> (the state it starts from, the state it leads to)
TRANSITIONS = {
    "freeze": (ACTIVE, FROZEN),
    "close": (ACTIVE, CLOSED),
    "fail-provisioning": (PENDING, FAILED),
}
NOT_ACTIVE = "ACCOUNT_NOT_ACTIVE"

SENDS = seam(
    "accounts.internal_sends",
    "whether an internal account in its status may be debited by a transfer (context: status)",
)
RECEIVES = seam(
    "accounts.internal_receives",
    "whether an internal account in its status may be credited (context: status)",
)
TRANSITION_TARGET = seam(
    "accounts.transition_target",
    "the status a sandbox internal-account transition leads to (context: action, start)",
)


def sends(settings: ServerSettings, status: str) -> bool:
    """Whether an internal account in ``status`` may be debited by a transfer."""
    return settings.seams.apply(SENDS, status == ACTIVE, status=status)


def receives(settings: ServerSettings, status: str) -> bool:
    """Whether an internal account in ``status`` may be credited."""
    return settings.seams.apply(RECEIVES, status == ACTIVE, status=status)


def receiving_account(
    services: Services, platform_id: str, account_id: str
) -> internal_accounts.InternalAccount:
    """The internal account a deposit credits: 404 when unknown, ``409
    ACCOUNT_CANNOT_RECEIVE`` unless its status lets it receive (§3 Internal account). Call
    inside the crediting DB transaction."""
    account = internal_accounts.load(services.db, platform_id, account_id)
    if account is None:
        raise ApiError(404, "NOT_FOUND", f"no internal account {account_id}")
    if not receives(services.settings, account.status):
        raise ApiError(
            409,
            "ACCOUNT_CANNOT_RECEIVE",
            f"{account.id} is {account.status}; only ACTIVE accounts can receive"
            " (§3 Internal account)",
        )
    return account


def check_execution(services: Services, quote: Quote) -> None:
    """``409 ACCOUNT_NOT_ACTIVE`` when the quote's internal source can no longer send or its
    internal destination can no longer receive (a state changed after quoting). Call inside
    the executing DB transaction, before anything is debited."""
    db, settings = services.db, services.settings
    source = internal_accounts.load(db, quote.platform_id, quote.source_account_id)
    if source is not None and not sends(settings, source.status):
        raise ApiError(
            409, NOT_ACTIVE, f"source {source.id} is {source.status}; it cannot send (§3)"
        )
    destination = internal_accounts.load(db, quote.platform_id, quote.destination_account_id)
    if destination is not None and not receives(settings, destination.status):
        raise ApiError(
            409,
            NOT_ACTIVE,
            f"destination {destination.id} is {destination.status}; it cannot receive (§3)",
        )


def _change(request: ApiRequest, action: str) -> Response:
    """``POST /sandbox/internal-accounts/{accountId}/<action>`` → the InternalAccount."""
    services, platform_id = request.services, request.platform.id
    db = services.db
    start, target = TRANSITIONS[action]
    target = services.settings.seams.apply(TRANSITION_TARGET, target, action=action, start=start)
    account_id = request.path_params["accountId"]
    with db.transaction():
        account = internal_accounts.load(db, platform_id, account_id)
        if account is None:
            raise ApiError(404, "NOT_FOUND", f"no internal account {account_id}")
        if account.status != start:
            raise ApiError(
                409,
                "ACCOUNT_STATE_CONFLICT",
                f"{account.id} is {account.status}; {action} applies to {start} accounts only"
                " (§3 Internal account)",
            )
        stamp = later_than(account.updated_at)
        db.execute(
            "UPDATE internal_accounts SET status = ?, updated_at = ? WHERE id = ?",
            (target, stamp, account.id),
        )
        changed = internal_accounts.load(db, platform_id, account.id)
        assert changed is not None
        body = internal_accounts.render(db, changed)
    return JSONResponse(body)


def _handler(action: str) -> Callable[[ApiRequest], Response]:
    def handle(request: ApiRequest) -> Response:
        return _change(request, action)

    handle.__name__ = f"{action.replace('-', '_')}_internal_account"
    return handle


ROUTES = [
    api_route(
        f"/sandbox/internal-accounts/{{accountId}}/{action}", Operation("POST", _handler(action))
    )
    for action in TRANSITIONS
]
