"""What the reference sandbox chooses where the interface is silent, for the OpenAPI document.

The interface document (``conformance openapi --interface-only``) holds only what the
interface states. The document the reference serves by (``openapi.json``, the default) adds
the reference's own choices, so a peer tool driving the reference knows them instead of
tripping on them:

- operations it serves beyond §4's shown ones (:data:`SERVED_ONLY`);
- request bodies where §4 shows none (:data:`REQUEST_BODIES`), each a schema of
  ``schemas/requests/`` whose ``x-reference-choice`` says so;
- query parameters beyond those §4 names (:data:`EXTRA_QUERY`), and the pagination of every
  list (:data:`PAGED`, :data:`PAGE_QUERY`: ``limit`` and ``cursor``, answered as
  ``{data, nextCursor}``);
- the ``400`` answers a schema cannot foretell (:data:`REFUSED_BEYOND_SCHEMA`: a point
  that is not on the curve, a cursor the list never gave), documented on their operation
  so that a peer tool expects them;
- stricter keywords inside the schemas: a schema node's ``x-reference-choice`` object holds
  keywords (``minLength``, ``pattern``, ``maximum``...) the served document merges into the
  node (replacing the node's own, but adding to its ``allOf`` and ``required`` and merged
  into its ``properties``, ``items`` and ``additionalProperties`` subschemas) and the
  interface document drops. JSON Schema validators ignore ``x-`` keywords, so
  the suite, which judges targets by these schemas, never holds anyone to them.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from conformance.contract.endpoint_schemas import Endpoint, QueryParameter

__all__ = [
    "CHOICE_KEY",
    "EXTRA_QUERY",
    "PAGED",
    "PAGE_QUERY",
    "REFUSED_BEYOND_SCHEMA",
    "REQUEST_BODIES",
    "SERVED_ONLY",
    "apply_schema_choices",
]

CHOICE_KEY = "x-reference-choice"
# Keywords a choice adds to rather than replaces: more subschemas, more required names (and
# its description follows the node's); and the ones whose subschemas it merges into (its
# keywords win there, the rest stay).
_ADDED = ("allOf", "required")
_MERGED = ("items", "additionalProperties")


def _merged(key: str, mine: Any, chosen: Any) -> Any:
    if key == "description" and isinstance(mine, str) and isinstance(chosen, str):
        return f"{mine} The reference: {chosen}"  # the interface's words stay first
    if key in _ADDED and isinstance(mine, list) and isinstance(chosen, list):
        return mine + [item for item in chosen if item not in mine]
    if key in _MERGED and isinstance(mine, dict) and isinstance(chosen, dict):
        return {**mine, **chosen}
    if key == "properties" and isinstance(mine, dict) and isinstance(chosen, dict):
        return {
            name: {**mine[name], **schema} if isinstance(mine.get(name), dict) else schema
            for name, schema in {**mine, **chosen}.items()
        }
    return chosen


_ACCOUNTS = "Accounts"
_CUSTOMER_FILTER = QueryParameter("customerId")

SERVED_ONLY: tuple[Endpoint, ...] = (
    # the external accounts of the platform, or of one customer
    Endpoint(
        "GET",
        "/customers/external-accounts",
        _ACCOUNTS,
        "external-account",
        is_list=True,
        query=(_CUSTOMER_FILTER,),
    ),
)

REQUEST_BODIES: Mapping[tuple[str, str], str] = {
    ("POST", "/sca/login/complete"): "requests/sca-login-complete",
    ("PATCH", "/internal-accounts/{id}"): "requests/wallet-privacy",
    ("POST", "/internal-accounts/{id}/export"): "requests/wallet-export",
    ("POST", "/transfer-in"): "requests/transfer",
    ("POST", "/transfer-out"): "requests/transfer",
    ("POST", "/cards/{id}/tokenize"): "requests/card-tokenize",
    ("POST", "/sandbox/cards/{id}/simulate/return_reversal"): "requests/card-return-reversal",
    ("POST", "/customers/external-accounts/{id}/verify"): "requests/ownership-verify",
}

# §4: "List endpoints: pagination parameters and response envelope: not shown". Every list
# the reference serves takes these and answers {"data": [...], "nextCursor": ...}; the value
# is the component of one item (None: the endpoint's own response schema is the item's).
PAGED: Mapping[tuple[str, str], str | None] = {
    ("GET", "/customers/internal-accounts"): None,
    ("GET", "/customers/external-accounts"): None,
    ("GET", "/transactions"): None,
    ("GET", "/customers/agreements"): "Agreements.Agreement",
}
_CURSOR = "a nextCursor this list answered; any other cursor is 400 INVALID_INPUT (CURSOR)"
PAGE_QUERY: tuple[QueryParameter, ...] = (
    QueryParameter(
        "limit",
        schema={"type": "integer", "minimum": 1, "maximum": 100, "default": 100},
    ),
    # an empty cursor is the first page, as none
    QueryParameter(
        "cursor",
        schema={"type": "string", "pattern": "^[A-Za-z0-9_-]*$", "description": _CURSOR},
    ),
)
_NOT_ON_CURVE = "the hex of a point that is not on the P-256 curve"
_SHORT = "a source account whose available balance is short of the quote (INSUFFICIENT_FUNDS)"
# Why the reference answers 400 to a request its schemas admit: what no schema can state (the
# curve's equation, which cursors the list gave, the balance of the account a quote names).
REFUSED_BEYOND_SCHEMA: Mapping[tuple[str, str], tuple[str, ...]] = {
    ("POST", "/quotes"): (f"immediatelyExecute from {_SHORT}",),
    ("POST", "/quotes/{quoteId}/execute"): (_SHORT,),
    ("POST", "/auth/credentials/{id}/challenge"): (f"clientPublicKey: {_NOT_ON_CURVE}",),
    ("POST", "/auth/credentials/{id}/verify"): (f"clientPublicKey: {_NOT_ON_CURVE}",),
    ("POST", "/internal-accounts/{id}/export"): (f"targetPublicKey: {_NOT_ON_CURVE}",),
    **{operation: (f"cursor: {_CURSOR}",) for operation in PAGED},
    # the served document gives the filters one parameter each (a rule across two has no
    # place there), so the rule §7 states between them is named here
    ("GET", "/transactions"): (
        f"cursor: {_CURSOR}",
        "status combined with type=CARD (§7: status filters payment transactions only)",
    ),
}

EXTRA_QUERY: Mapping[tuple[str, str], tuple[QueryParameter, ...]] = {
    ("GET", "/transactions"): (_CUSTOMER_FILTER,),
}


def apply_schema_choices(node: Any, *, served: bool) -> Any:
    """A copy of ``node`` with each ``x-reference-choice`` object merged into its schema
    (``served``) or dropped (the interface's own document). A string value only annotates
    (a whole schema that is the reference's choice) and is kept in the served document."""
    if isinstance(node, list):
        return [apply_schema_choices(item, served=served) for item in node]
    if not isinstance(node, dict):
        return node
    out: dict[str, Any] = {}
    choice = node.get(CHOICE_KEY)
    for key, value in node.items():
        if key != CHOICE_KEY:
            out[key] = apply_schema_choices(value, served=served)
    if served and isinstance(choice, dict):
        for key, value in apply_schema_choices(choice, served=served).items():
            out[key] = _merged(key, out[key], value) if key in out else value
        out[CHOICE_KEY] = sorted(choice)  # which keywords are the reference's, for readers
    elif served and choice is not None:
        out[CHOICE_KEY] = choice
    return out
