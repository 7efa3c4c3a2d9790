"""What the interface names, as lists a run's coverage is laid against: every operation of
§4's tables, every §6 event type, every §3 transition, every value §2 lists for a field.

These are the interface's own sections, not the suite's tests: the coverage map
(``reporting/interface_coverage.py``) shows, for each entry, what a run did to the target.
Operations whose exact path the interface does not show (external-account ownership
``challenge`` and ``verify``) are named by the path its table gives. The enumerated values
are read from the schemas (``schemas/``), which hold §2's lists.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

from conformance.contract import clauses
from conformance.contract.endpoint_schemas import normalize_path
from conformance.ground.datafiles import schemas_dir

__all__ = [
    "ENUM_SECTIONS",
    "EVENT_TYPES",
    "OPERATIONS",
    "TRANSITIONS",
    "Operation",
    "Transition",
    "enum_values",
    "match_operation",
]

_CUSTOMERS = clauses.CUSTOMERS_ENDPOINTS
_ACCOUNTS = clauses.ACCOUNTS_ENDPOINTS
_QUOTES = clauses.QUOTES_ENDPOINTS
_CONFIG = clauses.PLATFORM_CONFIGURATION_ENDPOINTS
_OTHER = clauses.CARDS_AGENTS_SANDBOX_ENDPOINTS


@dataclass(frozen=True, slots=True)
class Operation:
    """One row (or one of the paths of a row) of a §4 table."""

    method: str
    template: str
    section: str
    _pattern: re.Pattern[str] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        pieces = re.split(r"(\{[^}/]+\})", self.template)
        regex = "".join("[^/]+" if p.startswith("{") else re.escape(p) for p in pieces if p)
        object.__setattr__(self, "_pattern", re.compile(f"^{regex}$"))

    @property
    def name(self) -> str:
        """``METHOD /template``, the key the coverage map uses."""
        return f"{self.method} {self.template}"

    @property
    def rank(self) -> tuple[int, ...]:
        """1 per fixed word, 0 per placeholder: a literal segment beats a parameter."""
        return tuple(0 if s.startswith("{") else 1 for s in self.template.split("/") if s)

    def matches_path(self, path: str) -> bool:
        return self._pattern.match(path) is not None


def _ops(section: str, *rows: str) -> tuple[Operation, ...]:
    found = []
    for row in rows:
        method, template = row.split(" ", 1)
        found.append(Operation(method, template, section))
    return tuple(found)


OPERATIONS: tuple[Operation, ...] = (
    *_ops(
        _CUSTOMERS,
        "POST /customers",
        "GET /customers/{customerId}",
        "PATCH /customers/{customerId}",
        "POST /customers/{customerId}/kyc-link",
        "POST /customers/{customerId}/verify-email",
        "POST /customers/{customerId}/verify-phone",
        "POST /customers/{customerId}/verify-email/confirm",
        "POST /customers/{customerId}/verify-phone/confirm",
        "POST /beneficial-owners",
        "POST /documents",
        "POST /verifications",
        "GET /verifications",
        "GET /customers/agreements",
        "GET /customers/end-user-terms",
    ),
    *_ops(
        _ACCOUNTS,
        "POST /customers/external-accounts",
        "POST /customers/external-accounts/{id}/challenge",
        "POST /customers/external-accounts/{id}/verify",
        "GET /customers/internal-accounts",
        "POST /internal-accounts",
        "POST /internal-accounts/{id}/export",
        "PATCH /internal-accounts/{id}",
    ),
    *_ops(
        _QUOTES,
        "POST /quotes",
        "POST /quotes/{quoteId}/execute",
        "POST /quotes/{quoteId}/authorize",
        "GET /transactions",
        "POST /transactions/{transactionId}/approve",
        "POST /transfer-in",
        "POST /transfer-out",
    ),
    *_ops(_CONFIG, "GET /config", "PATCH /config"),
    *_ops(
        _OTHER,
        "POST /cards/{id}/tokenize",
        "POST /sandbox/cards/{id}/simulate/return_reversal",
        "POST /agents/device-codes/{code}/redeem",
        "POST /sca/login/complete",
        "POST /auth/credentials",
        "POST /auth/credentials/{id}/challenge",
        "POST /auth/credentials/{id}/verify",
        "DELETE /auth/credentials/{id}",
        "DELETE /auth/sessions/{id}",
        "POST /sandbox/send",
        "POST /sandbox/internal-accounts/{accountId}/fund",
        "POST /sandbox/webhooks/test",
    ),
)


def match_operation(method: str, url: str) -> Operation | None:
    """The §4 operation a request falls on (by path template, fixed words beating
    placeholders, then method), or None for a path or method §4 does not name."""
    route = normalize_path(url)
    on_path = [op for op in OPERATIONS if op.matches_path(route)]
    if not on_path:
        return None
    best = max(op.rank for op in on_path)
    verb = method.upper()
    return next((op for op in on_path if op.rank == best and op.method == verb), None)


# §6 Events: every type the table names ("invitation claimed" has no type string shown).
EVENT_TYPES: tuple[str, ...] = (
    "OUTGOING_PAYMENT.PROCESSING",
    "OUTGOING_PAYMENT.COMPLETED",
    "OUTGOING_PAYMENT.FAILED",
    "OUTGOING_PAYMENT.REFUND_PENDING",
    "OUTGOING_PAYMENT.REFUND_COMPLETED",
    "OUTGOING_PAYMENT.REFUND_FAILED",
    "INCOMING_PAYMENT.REFUND_PENDING",
    "INCOMING_PAYMENT.REFUND_COMPLETED",
    "INCOMING_PAYMENT.REFUND_FAILED",
    "CUSTOMER.KYC_PENDING",
    "CUSTOMER.KYC_APPROVED",
    "CUSTOMER.KYC_REJECTED",
    "CUSTOMER.KYB_PENDING",
    "CUSTOMER.KYB_APPROVED",
    "CUSTOMER.KYB_REJECTED",
    "CARD_TRANSACTION.SETTLED",
    "CARD_TRANSACTION.DECLINED",
    "CARD_TRANSACTION.VOIDED",
    "EXTERNAL_ACCOUNT.STATUS_UPDATED",
    "TEST",
)


@dataclass(frozen=True, slots=True)
class Transition:
    """One move of a §3 table: a resource's status field from one value to the next."""

    resource: str  # the schema the resource follows (quote, transaction, customer, ...)
    field: str
    before: str
    after: str
    section: str
    # the §6 event the §3 table says the move fires ("Also happens"), if any
    event: str | None = None

    @property
    def name(self) -> str:
        return f"{self.resource}.{self.field}: {self.before} -> {self.after}"


def _moves(resource: str, status: str, section: str, *pairs: str) -> tuple[Transition, ...]:
    """Transitions written "BEFORE -> AFTER", or "BEFORE -> AFTER = EVENT.TYPE"."""
    found = []
    for pair in pairs:
        move, _, event = pair.partition(" = ")
        before, after = move.split(" -> ")
        found.append(Transition(resource, status, before, after, section, event or None))
    return tuple(found)


_QUOTE_SECTION = clauses.QUOTE_AND_TRANSACTION_STATES
_KYC_SECTION = clauses.CUSTOMER_VERIFICATION_STATES
TRANSITIONS: tuple[Transition, ...] = (
    *_moves(
        "quote", "status", _QUOTE_SECTION,
        "PENDING -> PROCESSING", "PENDING -> PENDING_AUTHORIZATION",
        "PENDING_AUTHORIZATION -> PROCESSING", "PENDING -> EXPIRED",
    ),
    *_moves(
        "transaction", "status", _QUOTE_SECTION,
        "PENDING -> PROCESSING = OUTGOING_PAYMENT.PROCESSING",
        "PROCESSING -> COMPLETED = OUTGOING_PAYMENT.COMPLETED",
        "PROCESSING -> FAILED = OUTGOING_PAYMENT.FAILED",
    ),
    *_moves(
        "customer", "kycStatus", _KYC_SECTION,
        "UNVERIFIED -> PENDING = CUSTOMER.KYC_PENDING",
        "PENDING -> APPROVED = CUSTOMER.KYC_APPROVED",
        "PENDING -> REJECTED = CUSTOMER.KYC_REJECTED",
    ),
    *_moves(
        "customer", "kybStatus", _KYC_SECTION,
        "UNVERIFIED -> PENDING = CUSTOMER.KYB_PENDING",
        "PENDING -> APPROVED = CUSTOMER.KYB_APPROVED",
        "PENDING -> REJECTED = CUSTOMER.KYB_REJECTED",
    ),
    *_moves("customer", "contactVerification.email", clauses.CONTACT_VERIFICATION_STATES,
            "PENDING -> VERIFIED"),
    *_moves("customer", "contactVerification.phone", clauses.CONTACT_VERIFICATION_STATES,
            "PENDING -> VERIFIED"),
    *_moves(
        "internal-account", "status", clauses.INTERNAL_ACCOUNT_STATES,
        "PENDING -> ACTIVE", "PENDING -> FAILED", "ACTIVE -> CLOSED", "ACTIVE -> FROZEN",
    ),
    *_moves(
        "external-account", "status", clauses.EXTERNAL_ACCOUNT_STATES,
        "PENDING_OWNERSHIP_VERIFICATION -> ACTIVE", "PENDING_OWNERSHIP_VERIFICATION -> UNVERIFIED",
    ),
    *_moves("invitation", "status", clauses.INVITATION_STATES, "PENDING -> CLAIMED"),
)  # fmt: skip


# Lists §2 gives in its tables that the schemas leave open (a value outside them is not
# refused: "not shown beyond those listed").
_LISTED_IN_TEXT = {
    "quote.status": ("PENDING", "PROCESSING", "COMPLETED", "PENDING_AUTHORIZATION", "EXPIRED"),
    "transaction.status": ("PENDING", "PROCESSING", "COMPLETED", "FAILED", "EXPIRED"),
}


# The §2 section of each resource whose values are listed (the schema's name).
ENUM_SECTIONS = {
    "card-transaction": clauses.CARD_TRANSACTION,
    "customer": clauses.CUSTOMER,
    "document": clauses.DOCUMENT,
    "external-account": clauses.EXTERNAL_ACCOUNT,
    "internal-account": clauses.INTERNAL_ACCOUNT,
    "platform-config": clauses.PLATFORM_CONFIG,
    "quote": clauses.QUOTE,
    "transaction": clauses.TRANSACTION,
    "wallet-credential": clauses.CARDS_AGENTS_SANDBOX_ENDPOINTS,  # POST /auth/credentials
}


@cache
def enum_values() -> dict[str, tuple[str, ...]]:
    """Every field a §2 schema lists values for, as ``resource.path`` (``[]`` for a list's
    items) to its values: ``quote.status``, ``customer.contactVerification.email``."""
    root = schemas_dir()
    found: dict[str, tuple[str, ...]] = dict(_LISTED_IN_TEXT)
    for path in sorted(root.glob("*.json")):
        if path.stem == "common":
            continue  # its definitions are reached through the resources that use them
        document = json.loads(path.read_text(encoding="utf-8"))
        for where, values in _enums(document, path, root, "", 0):
            found.setdefault(f"{path.stem}.{where}", values)
    return found


def _enums(
    node: Any, file: Path, root: Path, where: str, depth: int
) -> Iterator[tuple[str, tuple[str, ...]]]:
    """The ``(path, values)`` of every ``enum`` under ``node``, following ``$ref``s."""
    if not isinstance(node, dict) or depth > 8:
        return
    if where and isinstance(node.get("enum"), list):
        yield where, tuple(str(v) for v in node["enum"] if v is not None)
    if isinstance(node.get("$ref"), str):
        target, target_file = _resolve(node["$ref"], file, root)
        yield from _enums(target, target_file, root, where, depth + 1)
    for name, inner in (node.get("properties") or {}).items():
        yield from _enums(inner, file, root, f"{where}.{name}" if where else name, depth + 1)
    if isinstance(node.get("items"), dict):
        yield from _enums(node["items"], file, root, f"{where}[]", depth + 1)
    for keyword in ("allOf", "anyOf", "oneOf"):
        for inner in node.get(keyword) or ():
            yield from _enums(inner, file, root, where, depth + 1)


def _resolve(ref: str, file: Path, root: Path) -> tuple[Any, Path]:
    """The node a ``$ref`` names (a file of ``schemas/``, a JSON pointer in it)."""
    name, _, pointer = ref.partition("#")
    target_file = (file.parent / name).resolve() if name else file
    if not target_file.is_relative_to(root.resolve()) or not target_file.is_file():
        return None, file
    node: Any = _load(target_file)
    for step in (s for s in pointer.split("/") if s):
        node = node.get(step) if isinstance(node, dict) else None
    return node, target_file


@cache
def _load(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))
