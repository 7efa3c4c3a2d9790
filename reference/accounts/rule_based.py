"""Rule-based accounts (§2 InternalAccount ``RULE_BASED``, §4 ``POST /internal-accounts``,
§8 Limits): creation with its idempotency, and the sweep a payment to the account's number
triggers (SANDBOX.md, "Rule-based accounts, ownership verification, payout scenarios
and incoming payments").

- The feature is enabled for the ``primary`` platform only; the ``second`` platform gets
  ``403 FEATURE_NOT_ENABLED``.
- The body is validated all at once (``400 INVALID_INPUT``): ``type`` must be
  ``RULE_BASED``; ``currency`` (default USD) must be USD (``USD_ONLY``); ``customerId`` is
  required (a platform-owned account is refused), must be an individual
  (``INDIVIDUALS_ONLY``) already holding an ``ACTIVE`` USD account (``NO_ACTIVE_ACCOUNT``);
  ``label`` at most 255 characters; ``sweepRule`` is ``{destinationAccountId}``, an
  ``ACTIVE`` USD internal account of the same customer that is not itself rule-based; the
  ``Idempotency-Key`` header holds 1 to 255 characters.
- Idempotency: a key is stored per platform with the SHA-256 of the canonical body; the
  same key and body answer ``200`` with the first account, another body ``409
  IDEMPOTENCY_KEY_REUSED``. Without a key every request mints a new account.
- Funding the account credits it and sweeps the amount to the destination in the same DB
  transaction (ledger kinds ``FUNDING`` then ``SWEEP``).
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from starlette.responses import JSONResponse, Response

from reference.accounts import internal_accounts, ledger
from reference.accounts import states as account_states
from reference.accounts.internal_accounts import InternalAccount
from reference.customers import store as customer_store
from reference.kernel.db import Database, to_json
from reference.kernel.errors import ApiError
from reference.kernel.field_checks import text
from reference.kernel.platforms import PRIMARY
from reference.kernel.routing import ApiRequest, Operation, api_route
from reference.kernel.seams import seam
from reference.kernel.services import Services
from reference.kernel.validation import Problems, at

IDEMPOTENCY_HEADER = "Idempotency-Key"
MAX_IDEMPOTENCY_KEY = 255  # §8 Limits
MAX_LABEL = 255  # §8 Limits
CURRENCY = "USD"  # §8 Limits: rule-based accounts are USD only
LABEL = "label"
DESTINATION = "destinationAccountId"
SWEEP = "SWEEP"  # ledger kind: the sweep out of, and into, accounts
# What the start-up line declares to the suite (its --features): the primary platform has
# rule-based accounts, the second platform does not.
FEATURES = ("rule-based-accounts", "rule-based-accounts-off-for-second-platform")

FEATURE_ENABLED = seam(
    "rule_based.feature_enabled",
    "whether rule-based accounts are enabled for the platform (context: role)",
)
CUSTOMER_KIND_ALLOWED = seam(
    "rule_based.customer_kind_allowed",
    "whether the customer's kind (individual or business) may hold a rule-based account"
    " (context: customer)",
)
CURRENCY_ALLOWED = seam(
    "rule_based.currency_allowed",
    "whether a rule-based account may be opened in the requested currency (context: currency)",
)
LENGTH_WITHIN_LIMIT = seam(
    "rule_based.length_within_limit",
    "whether a POST /internal-accounts field's length is within its §8 limit"
    " (context: field, the Idempotency-Key header or label; value)",
)
KEY_RECORD = seam(
    "rule_based.key_record",
    "the stored use of an Idempotency-Key, (body SHA-256, account id), or None when it was"
    " never used (context: platform_id, key, digest, the SHA-256 of this request's body)",
)
SWEEP_DESTINATION = seam(
    "rule_based.sweep_destination",
    "the internal account the money arriving at a rule-based account is swept to, or None to"
    " keep it there (context: account, the rule-based account; amount)",
)


def feature_enabled(services: Services, role: str) -> bool:
    """Rule-based accounts are enabled for the primary platform only (our choice)."""
    return services.settings.seams.apply(FEATURE_ENABLED, role == PRIMARY, role=role)


def _customer(
    request: ApiRequest, problems: Problems, customer_id: Any
) -> customer_store.Customer | None:
    db, settings = request.services.db, request.services.settings
    if text(problems, "customerId", customer_id) is None:
        return None
    customer = customer_store.load(db, request.platform.id, customer_id)
    if customer is None:
        problems.unknown("customerId", "UNKNOWN_CUSTOMER", "must be a customer of the platform")
        return None
    if not settings.seams.apply(CUSTOMER_KIND_ALLOWED, customer.is_individual, customer=customer):
        problems.conflict(
            "customerId", "INDIVIDUALS_ONLY", "rule-based accounts are for individuals"
        )
        return None
    holds = [
        a
        for a in internal_accounts.owned_by(db, request.platform.id, customer.id)
        if a.currency == CURRENCY and a.is_active and a.account_type != internal_accounts.RULE_BASED
    ]
    if not holds:
        problems.conflict(
            "customerId", "NO_ACTIVE_ACCOUNT", "must already hold an ACTIVE USD account"
        )
        return None
    return customer


def _destination(
    request: ApiRequest, problems: Problems, rule: dict[str, Any], customer_id: str | None
) -> None:
    path = at("sweepRule", DESTINATION)
    value = problems.required(rule, DESTINATION, "sweepRule")
    if value is None or text(problems, path, value) is None:
        return
    account = internal_accounts.load(request.services.db, request.platform.id, value)
    if account is None:
        problems.unknown(path, "UNKNOWN_ACCOUNT", "must be an internal account of the platform")
    elif customer_id is not None and account.customer_id != customer_id:
        problems.conflict(path, "OTHER_CUSTOMER", "must be an account of the same customer")
    elif account.account_type == internal_accounts.RULE_BASED:
        problems.conflict(path, "RULE_BASED", "must not itself be a rule-based account")
    elif account.currency != CURRENCY or not account.is_active:
        problems.conflict(path, "ACCOUNT_NOT_USABLE", "must be an ACTIVE USD account")


def _validate(request: ApiRequest) -> tuple[str, str | None, dict[str, Any], str | None]:
    """``(customerId, label, sweepRule, Idempotency-Key)``, or every invalid field at once."""
    body, problems, settings = request.body, Problems(), request.services.settings
    key = request.headers.get(IDEMPOTENCY_HEADER)
    if key is not None and not settings.seams.apply(
        LENGTH_WITHIN_LIMIT,
        1 <= len(key) <= MAX_IDEMPOTENCY_KEY,
        field=IDEMPOTENCY_HEADER,
        value=key,
    ):
        problems.add(
            IDEMPOTENCY_HEADER, "MAX_LENGTH" if key else "MIN_LENGTH", "must be 1 to 255 characters"
        )
    kind = problems.required(body, "type", "")
    if kind is not None:
        problems.one_of("type", kind, (internal_accounts.RULE_BASED,))
    code = body.get("currency", CURRENCY)
    if problems.string("currency", code) is not None and not settings.seams.apply(
        CURRENCY_ALLOWED, code == CURRENCY, currency=code
    ):
        problems.add("currency", "USD_ONLY", "rule-based accounts are USD only")
    customer_id = problems.required(body, "customerId", "")
    customer = None if customer_id is None else _customer(request, problems, customer_id)
    label = body.get(LABEL)
    label_text = None if label is None else problems.string(LABEL, label)
    if label_text is not None and not settings.seams.apply(
        LENGTH_WITHIN_LIMIT, len(label_text) <= MAX_LABEL, field=LABEL, value=label_text
    ):
        problems.add(LABEL, "MAX_LENGTH", f"must be at most {MAX_LABEL} characters")
    rule = problems.required(body, "sweepRule", "")
    if rule is not None:
        rule = problems.object("sweepRule", rule)
    if rule is not None:
        _destination(request, problems, rule, customer.id if customer else None)
    problems.raise_if_any()
    assert customer is not None and isinstance(rule, dict)
    return customer.id, label, rule, key


def _body_hash(body: dict[str, Any]) -> str:
    canonical = json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


def _replay(services: Services, platform_id: str, key: str, digest: str) -> Response | None:
    """The answer to a key already used, or None when the request should mint."""
    db = services.db
    row = db.fetchone(
        """SELECT body_sha256, account_id FROM rule_based_keys
           WHERE platform_id = ? AND idempotency_key = ?""",
        (platform_id, key),
    )
    stored: tuple[str, str] | None = (
        None if row is None else (row["body_sha256"], row["account_id"])
    )
    record = services.settings.seams.apply(
        KEY_RECORD, stored, platform_id=platform_id, key=key, digest=digest
    )
    if record is None:
        return None
    stored_digest, account_id = record
    if stored_digest != digest:
        raise ApiError(
            409,
            "IDEMPOTENCY_KEY_REUSED",
            f"Idempotency-Key {key!r} was used for a materially different account"
            f" ({account_id}; §4 Accounts)",
        )
    account = internal_accounts.load(db, platform_id, account_id)
    assert account is not None
    return JSONResponse(internal_accounts.render(db, account), status_code=200)


def create_rule_based_account(request: ApiRequest) -> Response:
    """``POST /internal-accounts`` → 201 InternalAccount, 200 on a replay, 409 on a
    conflicting replay."""
    services, platform_id = request.services, request.platform.id
    db = services.db
    if not feature_enabled(services, request.platform.role):
        raise ApiError(
            403,
            "FEATURE_NOT_ENABLED",
            "rule-based accounts are not enabled for this platform (§4 Accounts)",
        )
    with db.transaction():
        customer_id, label, rule, key = _validate(request)
        digest = _body_hash(request.body)
        if key is not None and (replayed := _replay(services, platform_id, key, digest)):
            return replayed
        account = internal_accounts.insert_rule_based(db, platform_id, customer_id, CURRENCY, label)
        db.execute(
            """INSERT INTO rule_based_accounts (account_id, platform_id, sweep_rule,
               destination_id) VALUES (?, ?, ?, ?)""",
            (account.id, platform_id, to_json(rule), rule[DESTINATION]),
        )
        if key is not None:
            db.execute(
                """INSERT OR REPLACE INTO rule_based_keys
                   (platform_id, idempotency_key, body_sha256, account_id) VALUES (?, ?, ?, ?)""",
                (platform_id, key, digest, account.id),
            )
        body = internal_accounts.render(db, account)
    return JSONResponse(body, status_code=201)


def sweep(services: Services, account: InternalAccount, amount: int) -> None:
    """After ``amount`` arrived at a rule-based account: move it to the rule's destination.
    Call inside the DB transaction that credited it; other accounts are left alone."""
    if account.account_type != internal_accounts.RULE_BASED:
        return
    db: Database = services.db
    row = db.fetchone(
        "SELECT destination_id FROM rule_based_accounts WHERE account_id = ?", (account.id,)
    )
    destination = (
        None
        if row is None
        else internal_accounts.load(db, account.platform_id, row["destination_id"])
    )
    destination = services.settings.seams.apply(
        SWEEP_DESTINATION, destination, account=account, amount=amount
    )
    if destination is None or not account_states.receives(services.settings, destination.status):
        return  # the destination is frozen, closed or failed: the money stays here
    ledger.post(db, account.id, -amount, SWEEP)
    ledger.post(db, destination.id, amount, SWEEP)


ROUTES = [
    api_route("/internal-accounts", Operation("POST", create_rule_based_account, body=True)),
]
