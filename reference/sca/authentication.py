"""Strong customer authentication (§5 SCA paragraph; §2 Quote ``scaChallenge``; §3 Quote and
transaction; SANDBOX.md, "Strong customer authentication").

Who: a customer whose ``address.country`` is in the EEA, on a quote whose sending currency
is EUR or USDC. Executing such a quote checks the funds, holds them (available balance
drops, total does not) and answers the quote ``PENDING_AUTHORIZATION`` with its first
challenge; nothing is debited. Each valid proof on ``POST /quotes/{quoteId}/authorize``
authorizes the current challenge: a cross-currency quote needs two (``CONVERSION`` then
``PAYOUT``), a same-currency one one (``PAYOUT``). After the last one the hold is lifted
and the ordinary execution (``payments.release``) debits and settles.

Authorizing needs a live SCA session (``POST /sca/login/complete``, 180 days). Three wrong
proofs in a row lock the customer's SCA for ``LOCK_S`` seconds (423 ``ACCOUNT_LOCKED``).
A challenge not authorized by its ``expiresAt`` fails the transfer: the quote is
``EXPIRED``, its transaction ``FAILED`` with ``SCA_NOT_COMPLETED``, the hold lifted and
``OUTGOING_PAYMENT.FAILED`` sent; ``expire_due`` writes that down lazily before reads.

This module reads and writes quotes and transactions but never runs an execution: the routes
(``sca_api``) join the two. Payments reach it only through the ``Authorization`` the
assembly installs (``reference.payments.authorization``).
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, replace
from datetime import timedelta
from typing import Any

from reference.accounts import funding, ledger
from reference.customers import store as customer_store
from reference.customers.store import Customer
from reference.kernel.clock import iso, later_than, parse_iso, utc_now
from reference.kernel.countries import EEA
from reference.kernel.db import Database, from_json, to_json
from reference.kernel.errors import ApiError, FieldError, InvalidInput
from reference.kernel.seams import seam
from reference.kernel.services import Services
from reference.payments import quote_store
from reference.payments import transaction_store as txns
from reference.payments.quote_store import Quote

PENDING_AUTHORIZATION = "PENDING_AUTHORIZATION"
SCA_CURRENCIES = frozenset({"EUR", "USDC"})
FACTORS = ("SMS_OTP", "PASSKEY")
CONVERSION = "CONVERSION"
PAYOUT = "PAYOUT"
# Sandbox proofs: the fixed OTP code (as §5 does for OTP) and the legacy passkey literal.
SANDBOX_CODE = "000000"
SANDBOX_PASSKEY = "sandbox-valid-passkey-signature"
SESSION_DAYS = 180  # §5, §8 Limits: the SCA session lasts 180 days
MAX_WRONG_PROOFS = 3
LOCK_S = 30 * 60
CHALLENGE_LIFETIME_S = 5 * 60  # and never past the quote's expiresAt
SCA_NOT_COMPLETED = "SCA_NOT_COMPLETED"
HOLD = "SCA_HOLD"
RELEASE = "SCA_RELEASE"
_OPEN, _DONE, _EXPIRED = "OPEN", "DONE", "EXPIRED"

REQUIRED = seam(
    "sca.required",
    "whether executing a quote in EUR or USDC of a customer needs SCA: the customer is under"
    " SCA (context: quote)",
)
CHALLENGED_ON_EXECUTE = seam(
    "sca.challenged_on_execute",
    "whether executing a PENDING quote opens an SCA challenge instead of releasing it: SCA"
    " is required for it (context: quote)",
)
CHALLENGED_QUOTE_FIELDS = seam(
    "sca.challenged_quote_fields",
    "the fields of a new just-in-time quote under challenge, its paymentInstructions withheld"
    " (context: withheld, the instructions taken out)",
)
REPEAT_EXECUTE_RELEASES = seam(
    "sca.repeat_execute_releases",
    "the quote an execute of a quote awaiting authorization releases: None, so it is refused"
    " with 409 (context: services, quote)",
)
EXPIRY_FAILURE_REASON = seam(
    "sca.expiry_failure_reason",
    "the failureReason of a transfer whose SCA challenge expired: SCA_NOT_COMPLETED",
)
REFUSES_OUTSIDE_CUSTOMER = seam(
    "sca.refuses_outside_customer",
    "whether an SCA endpoint (login, quote authorization) refuses a customer outside SCA with"
    " 409 SCA_NOT_REQUIRED: always (context: customer)",
)
SESSION_LENGTH_DAYS = seam("sca.session_days", "the days an SCA session opened by a login lasts")
PROOF_VALID = seam(
    "sca.proof_valid",
    "whether the proof given on authorize (an OTP code or a passkey assertion) is valid"
    " (context: factor)",
)
SESSION_REFUSAL = seam(
    "sca.session_refusal",
    "the error answered to an authorize without a live SCA session: 409 SCA_SESSION_REQUIRED"
    " (context: customer)",
)
OUTSIDE_AUTHORIZE_RELEASES = seam(
    "sca.outside_authorize_releases",
    "whether quote authorization for a customer outside SCA releases the quote instead of"
    " answering 409: never (context: quote)",
)


def is_sca_customer(customer: Customer) -> bool:
    """A customer under SCA: the address is in the EEA (§5: EU customers)."""
    address = customer.fields.get("address")
    country = address.get("country") if isinstance(address, dict) else None
    return country in EEA


def _currency(quote: Quote, side: str) -> str:
    return str(quote.fields[side]["code"])


def required(services: Services, quote: Quote) -> bool:
    """Whether executing ``quote`` needs SCA: an SCA customer sending EUR or USDC."""
    if quote.customer_id is None or _currency(quote, "sendingCurrency") not in SCA_CURRENCIES:
        return False
    customer = customer_store.load(services.db, quote.platform_id, quote.customer_id)
    under_sca = customer is not None and is_sca_customer(customer)
    return services.settings.seams.apply(REQUIRED, under_sca, quote=quote)


def _not_required(customer_id: str) -> ApiError:
    return ApiError(409, "SCA_NOT_REQUIRED", f"{customer_id} is not subject to SCA")


# -- quotes ------------------------------------------------------------------------------


def _store(db: Database, quote: Quote, status: str, fields: dict[str, Any]) -> Quote:
    stamp = later_than(quote.updated_at)
    db.execute(
        "UPDATE quotes SET status = ?, fields = ?, updated_at = ? WHERE id = ?",
        (status, to_json(fields), stamp, quote.id),
    )
    return replace(quote, status=status, fields=fields, updated_at=stamp)


def _hold(services: Services, quote: Quote, *, release: bool = False) -> None:
    """Hold (or release) the sending amount of an internal source: one unheld and one held
    row, so the available balance moves and the total does not (ledger: available leaves
    out held rows). A pulled or just-in-time source holds nothing here."""
    source = funding.ledger_source(services, quote.platform_id, quote.fields)
    if source is None:
        return
    amount = int(quote.fields["totalSendingAmount"]) * (1 if release else -1)
    kind = RELEASE if release else HOLD
    ledger.post(services.db, source, amount, kind, quote.transaction_id)
    ledger.post(services.db, source, -amount, kind, quote.transaction_id, held=True)


def _challenge(quote: Quote, purpose: str) -> dict[str, Any]:
    latest = utc_now() + timedelta(seconds=CHALLENGE_LIFETIME_S)
    expires = min(latest, parse_iso(quote.expires_at))
    return {
        "id": f"ScaChallenge:{uuid.uuid4()}",
        "expiresAt": iso(expires),
        "factor": FACTORS[0],
        "availableFactors": list(FACTORS),
        "purpose": purpose,
    }


def _open(db: Database, quote: Quote, purposes: list[str], step: int) -> Quote:
    """Put the challenge for ``purposes[step]`` on the quote (``PENDING_AUTHORIZATION``)."""
    challenge = _challenge(quote, purposes[step])
    db.execute(
        """INSERT INTO sca_quotes (quote_id, platform_id, customer_id, purposes, step, state,
           expires_at) VALUES (?, ?, ?, ?, ?, ?, ?)
           ON CONFLICT (quote_id) DO UPDATE SET step = excluded.step, state = excluded.state,
           expires_at = excluded.expires_at""",
        (quote.id, quote.platform_id, quote.customer_id, to_json(purposes), step, _OPEN,
         challenge["expiresAt"]),
    )  # fmt: skip
    return _store(db, quote, PENDING_AUTHORIZATION, {**quote.fields, "scaChallenge": challenge})


def _close(services: Services, quote: Quote, state: str) -> dict[str, Any]:
    """Mark the quote's SCA ``state``, lift the hold; the quote's fields without a challenge."""
    services.db.execute("UPDATE sca_quotes SET state = ? WHERE quote_id = ?", (state, quote.id))
    _hold(services, quote, release=True)
    return {k: v for k, v in quote.fields.items() if k != "scaChallenge"}


def challenge_on_execute(services: Services, quote: Quote) -> Quote | None:
    """Execute of a ``PENDING`` quote whose funds were checked: the challenged quote when it
    needs SCA (funds held, nothing debited), else None (execute as usual)."""
    db = services.db
    challenged = required(services, quote)
    if not services.settings.seams.apply(CHALLENGED_ON_EXECUTE, challenged, quote=quote):
        return None
    _hold(services, quote)
    same = _currency(quote, "sendingCurrency") == _currency(quote, "receivingCurrency")
    return _open(db, quote, _purposes(same), 0)


def challenge_on_create(services: Services, quote: Quote) -> Quote:
    """A new just-in-time quote of a customer under SCA: ``PENDING_AUTHORIZATION`` with its
    challenge, its ``paymentInstructions`` withheld until the last challenge is authorized
    (§2 Quote); any other quote unchanged."""
    if not funding.is_realtime(quote.fields) or not required(services, quote):
        return quote
    fields = dict(quote.fields)
    withheld = fields.pop("paymentInstructions", None)
    fields = services.settings.seams.apply(CHALLENGED_QUOTE_FIELDS, fields, withheld=withheld)
    same = _currency(quote, "sendingCurrency") == _currency(quote, "receivingCurrency")
    challenged = _open(services.db, replace(quote, fields=fields), _purposes(same), 0)
    services.db.execute(
        "UPDATE sca_quotes SET withheld = ? WHERE quote_id = ?", (to_json(withheld), quote.id)
    )
    return challenged


def _purposes(same_currency: bool) -> list[str]:
    return [PAYOUT] if same_currency else [CONVERSION, PAYOUT]


def lift_challenge(services: Services, quote: Quote) -> Quote:
    """The quote with its SCA done and its hold lifted, status unchanged: ready to release."""
    return _store(services.db, quote, quote.status, _close(services, quote, _DONE))


def on_repeat_execute(services: Services, quote: Quote) -> Quote | None:
    """Execute of a quote awaiting authorization: 409; None for any other quote."""
    if quote.status != PENDING_AUTHORIZATION:
        return None
    released = services.settings.seams.apply(
        REPEAT_EXECUTE_RELEASES, None, services=services, quote=quote
    )
    if released is not None:
        return released
    raise ApiError(
        409,
        "QUOTE_PENDING_AUTHORIZATION",
        f"{quote.id} awaits SCA authorization: POST /quotes/{{quoteId}}/authorize",
    )


def expire_due(services: Services, platform_id: str) -> None:
    """Fail the platform's transfers whose current challenge passed ``expiresAt``: quote
    ``EXPIRED``, transaction ``FAILED`` (``SCA_NOT_COMPLETED``), hold lifted, event sent.
    Call inside a transaction, before reading quotes or transactions."""
    db = services.db
    rows = db.fetchall(
        "SELECT quote_id FROM sca_quotes WHERE platform_id = ? AND state = ? AND expires_at <= ?",
        (platform_id, _OPEN, iso(utc_now())),
    )
    reason = services.settings.seams.apply(EXPIRY_FAILURE_REASON, SCA_NOT_COMPLETED)
    for row in rows:
        quote = quote_store.load(db, platform_id, row["quote_id"])
        if quote is None or quote.status != PENDING_AUTHORIZATION:
            continue
        _store(db, quote, quote_store.EXPIRED, _close(services, quote, _EXPIRED))
        transaction = txns.load(db, platform_id, quote.transaction_id)
        if transaction is None or transaction.status in txns.FINAL:
            continue
        stamp = later_than(transaction.updated_at)
        failed = txns.save(db, transaction, stamp, status=txns.FAILED, failure_reason=reason)
        services.webhooks.enqueue_event(
            platform_id, "OUTGOING_PAYMENT.FAILED", txns.render(failed), timestamp=stamp
        )


# -- customers: session and lock ----------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _CustomerState:
    session_expires_at: str | None
    wrong_proofs: int
    locked_until: str | None


def _state(db: Database, customer_id: str) -> _CustomerState:
    row = db.fetchone("SELECT * FROM sca_customers WHERE customer_id = ?", (customer_id,))
    if row is None:
        return _CustomerState(None, 0, None)
    return _CustomerState(row["session_expires_at"], row["wrong_proofs"], row["locked_until"])


def _save_state(db: Database, customer: Customer, state: _CustomerState) -> None:
    db.execute(
        """INSERT INTO sca_customers (customer_id, platform_id, session_expires_at, wrong_proofs,
           locked_until) VALUES (?, ?, ?, ?, ?)
           ON CONFLICT (customer_id) DO UPDATE SET session_expires_at = excluded.session_expires_at,
           wrong_proofs = excluded.wrong_proofs, locked_until = excluded.locked_until""",
        (customer.id, customer.platform_id, state.session_expires_at, state.wrong_proofs,
         state.locked_until),
    )  # fmt: skip


def _live(stamp: str | None) -> bool:
    return stamp is not None and parse_iso(stamp) > utc_now()


def _strings(body: dict[str, Any], names: tuple[str, ...]) -> dict[str, str]:
    """The named fields as non-empty strings, or 400 listing every one that is not."""
    errors = [
        FieldError(name, "REQUIRED", "must be a non-empty string")
        for name in names
        if not isinstance(body.get(name), str) or not body[name]
    ]
    if errors:
        raise InvalidInput(errors)
    return {name: str(body[name]) for name in names}


def _wrong_code() -> ApiError:
    return ApiError(401, "UNAUTHORIZED", "the SCA proof is wrong", reason="Invalid SCA code")


def login_complete(services: Services, platform_id: str, body: dict[str, Any]) -> dict[str, Any]:
    """``POST /sca/login/complete {customerId, code}`` → ``{customerId, sessionExpiresAt}``."""
    db = services.db
    fields = _strings(body, ("customerId", "code"))
    customer = customer_store.load_or_404(db, platform_id, fields["customerId"])
    if not is_sca_customer(customer) and services.settings.seams.apply(
        REFUSES_OUTSIDE_CUSTOMER, True, customer=customer
    ):
        raise _not_required(customer.id)
    if fields["code"] != SANDBOX_CODE:
        raise _wrong_code()
    days = services.settings.seams.apply(SESSION_LENGTH_DAYS, SESSION_DAYS)
    expires = iso(utc_now() + timedelta(days=days))
    _save_state(db, customer, replace(_state(db, customer.id), session_expires_at=expires))
    return {"customerId": customer.id, "sessionExpiresAt": expires}


# -- authorization ------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Authorization:
    """What one authorize call came to: the quote as it stands, whether the transfer is
    now to be released, and an error to answer after committing (a wrong proof counts)."""

    quote: Quote
    release: bool = False
    error: ApiError | None = None


def _proof_ok(services: Services, challenge: dict[str, Any], body: dict[str, Any]) -> bool:
    factor = body.get("factor", challenge.get("factor"))
    if factor not in challenge.get("availableFactors", FACTORS):
        raise InvalidInput([FieldError("factor", "ONE_OF", f"must be one of {list(FACTORS)}")])
    if factor == "PASSKEY":
        proof = _strings(body, ("assertion",))["assertion"] == SANDBOX_PASSKEY
    else:
        proof = _strings(body, ("code",))["code"] == SANDBOX_CODE
    return services.settings.seams.apply(PROOF_VALID, proof, factor=factor)


def authorize(
    services: Services, platform_id: str, quote_id: str, body: dict[str, Any]
) -> Authorization:
    """``POST /quotes/{quoteId}/authorize``: check, then authorize the current challenge."""
    db = services.db
    expire_due(services, platform_id)
    quote = quote_store.load(db, platform_id, quote_id)
    if quote is None or quote.customer_id is None:
        raise ApiError(404, "NOT_FOUND", f"no quote {quote_id}")
    customer = customer_store.load_or_404(db, platform_id, quote.customer_id)
    if not is_sca_customer(customer):
        if not services.settings.seams.apply(REFUSES_OUTSIDE_CUSTOMER, True, customer=customer):
            return Authorization(quote)
        if services.settings.seams.apply(OUTSIDE_AUTHORIZE_RELEASES, False, quote=quote):
            return Authorization(quote, release=True)
        raise _not_required(customer.id)
    if quote.status == quote_store.EXPIRED:
        raise ApiError(400, "QUOTE_EXPIRED", f"{quote.id} expired; create a new quote")
    if quote.status != PENDING_AUTHORIZATION:
        raise ApiError(409, "QUOTE_NOT_PENDING_AUTHORIZATION", f"{quote.id} is {quote.status}")
    state = _state(db, customer.id)
    if _live(state.locked_until):
        raise ApiError(423, "ACCOUNT_LOCKED", f"SCA for {customer.id} is locked after wrong proofs")
    session = _live(state.session_expires_at)
    if not session:
        refusal = ApiError(
            409,
            "SCA_SESSION_REQUIRED",
            f"{customer.id} has no SCA session: POST /sca/login/complete",
        )
        raise services.settings.seams.apply(SESSION_REFUSAL, refusal, customer=customer)
    if not _proof_ok(services, quote.fields["scaChallenge"], body):
        wrong = state.wrong_proofs + 1
        if wrong >= MAX_WRONG_PROOFS:
            locked = iso(utc_now() + timedelta(seconds=LOCK_S))
            _save_state(db, customer, replace(state, wrong_proofs=0, locked_until=locked))
            error = ApiError(423, "ACCOUNT_LOCKED", f"SCA for {customer.id} is locked")
        else:
            _save_state(db, customer, replace(state, wrong_proofs=wrong))
            error = _wrong_code()
        return Authorization(quote, error=error)
    _save_state(db, customer, replace(state, wrong_proofs=0))
    row = db.fetchone(
        "SELECT purposes, step, withheld FROM sca_quotes WHERE quote_id = ?", (quote.id,)
    )
    assert row is not None  # written with the challenge
    purposes: list[str] = from_json(row["purposes"])
    step = int(row["step"]) + 1
    if step < len(purposes):
        return Authorization(_open(db, quote, purposes, step))
    if funding.is_realtime(quote.fields):  # now payable: show how to pay it
        fields = _close(services, quote, _DONE)
        fields["paymentInstructions"] = from_json(row["withheld"])
        return Authorization(_store(db, quote, quote_store.PENDING, fields))
    return Authorization(lift_challenge(services, quote), release=True)
