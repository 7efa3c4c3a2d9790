"""OpenAPI links for the record ids the interface passes from one operation to another.

A record's id (§Conventions: ``Customer:<uuid>``...) comes back in the answers of some
operations (:data:`ANSWERED`: a customer's ``id``, an account's ``customerId``) and is taken
by others in a path, a query parameter or a body member (:data:`TAKEN`: ``customerId`` of
``POST /verifications``, ``source.accountId`` of ``POST /quotes``). From each operation that
answers a record, a link goes to each operation taking the record's own id, setting with it
every other id of the answer that operation takes (an external account's customer as the
quote's source): a tool chaining requests (a stateful fuzzer) walks customer, external
account, quote, payment. Another record's id never makes a link alone: an account's
``customerId`` would open every customer operation again from every account, and a walk
spread that thin goes nowhere; for the same reason an update's answer (``PATCH``) gives no
link: it carries the ids of the record the walk just addressed, whose creation and reads
give the same links. Links are hints for such tools, never verdicts: where §4 lets
a place take several kinds (a quote's source is an internal or a pullable external
account), the link names the usual one.

A place or an answer whose shape is the reference's choice (a list's envelope, the body of
a deprecated transfer) gives links in the document the reference serves by only.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from conformance.contract.endpoint_schemas import Endpoint

__all__ = ["ANSWERED", "LIST_ITEM", "TAKEN", "Place", "id_links"]

# Where the reference's list answers hold their first item (§4: the envelope is not shown).
LIST_ITEM = "/data/0"
_CUSTOMER, _INTERNAL, _EXTERNAL = "Customer", "InternalAccount", "ExternalAccount"
_QUOTE, _OWNER, _TRANSACTION = "Quote", "BeneficialOwner", "Transaction"
# not an id: §4 says a sandbox payment's currencyCode equals the quote's funding currency
_FUNDING_CURRENCY = "funding currency"


@dataclass(frozen=True, slots=True)
class Place:
    """Where an operation takes an id of ``kind``: a ``path`` or ``query`` parameter by
    name, or a ``body`` member by JSON pointer (``/source/accountId``)."""

    kind: str
    where: str
    name: str
    served_only: bool = False  # the place is the reference's choice (a body §4 does not show)
    # the member §2 names beside the id in its object (a source's type), set with it
    beside: tuple[str, str] | None = None


# The ids each record's answer carries (by response schema), as JSON pointers into it:
# the record's own id and the ids §2 lists among its fields.
ANSWERED: Mapping[str, Mapping[str, str]] = {
    "customer": {_CUSTOMER: "/id"},
    "internal-account": {_INTERNAL: "/id", _CUSTOMER: "/customerId"},
    "external-account": {_EXTERNAL: "/id", _CUSTOMER: "/customerId"},
    "quote": {
        _QUOTE: "/id",
        _CUSTOMER: "/source/customerId",
        _FUNDING_CURRENCY: "/source/currency",
    },
    # a transaction's own id goes to its approval (§4: an agent-initiated one; any other
    # answers 409); no operation here takes a verification's own id
    "transaction": {_TRANSACTION: "/id", _QUOTE: "/quoteId", _CUSTOMER: "/customerId"},
    "transaction-list-item": {_TRANSACTION: "/id"},
    "verification": {_CUSTOMER: "/customerId"},
    "beneficial-owner": {_OWNER: "/id", _CUSTOMER: "/customerId"},
}

# The operations that take an id, and where (§4; §2 Document for a document's holder).
TAKEN: Mapping[tuple[str, str], tuple[Place, ...]] = {
    ("GET", "/customers/{customerId}"): (Place(_CUSTOMER, "path", "customerId"),),
    ("PATCH", "/customers/{customerId}"): (Place(_CUSTOMER, "path", "customerId"),),
    ("POST", "/customers/{customerId}/kyc-link"): (Place(_CUSTOMER, "path", "customerId"),),
    ("POST", "/customers/{customerId}/verify-email"): (Place(_CUSTOMER, "path", "customerId"),),
    ("POST", "/customers/{customerId}/verify-email/confirm"): (
        Place(_CUSTOMER, "path", "customerId"),
    ),
    ("POST", "/customers/{customerId}/verify-phone"): (Place(_CUSTOMER, "path", "customerId"),),
    ("POST", "/customers/{customerId}/verify-phone/confirm"): (
        Place(_CUSTOMER, "path", "customerId"),
    ),
    ("GET", "/customers/internal-accounts"): (Place(_CUSTOMER, "query", "customerId"),),
    ("GET", "/customers/external-accounts"): (Place(_CUSTOMER, "query", "customerId"),),
    ("GET", "/verifications"): (Place(_CUSTOMER, "query", "customerId"),),
    ("POST", "/verifications"): (Place(_CUSTOMER, "body", "/customerId"),),
    ("POST", "/beneficial-owners"): (Place(_CUSTOMER, "body", "/customerId"),),
    ("POST", "/customers/external-accounts"): (Place(_CUSTOMER, "body", "/customerId"),),
    # a rule-based account sweeps to another account of its customer (the rule's inner
    # structure is the reference's choice)
    ("POST", "/internal-accounts"): (
        Place(_CUSTOMER, "body", "/customerId"),
        Place(_INTERNAL, "body", "/sweepRule/destinationAccountId", served_only=True),
    ),
    # the reference's bodies where §4 shows none (SCA login, a wallet credential)
    ("POST", "/sca/login/complete"): (Place(_CUSTOMER, "body", "/customerId", served_only=True),),
    ("POST", "/auth/credentials"): (Place(_CUSTOMER, "body", "/customerId", served_only=True),),
    ("POST", "/documents"): (
        Place(_CUSTOMER, "body", "/documentHolder", served_only=True),
        Place(_OWNER, "body", "/documentHolder", served_only=True),
    ),
    ("POST", "/sandbox/internal-accounts/{accountId}/fund"): (
        Place(_INTERNAL, "path", "accountId"),
    ),
    ("POST", "/customers/external-accounts/{id}/challenge"): (Place(_EXTERNAL, "path", "id"),),
    ("POST", "/customers/external-accounts/{id}/verify"): (Place(_EXTERNAL, "path", "id"),),
    ("POST", "/transactions/{transactionId}/approve"): (
        Place(_TRANSACTION, "path", "transactionId"),
    ),
    ("PATCH", "/internal-accounts/{id}"): (Place(_INTERNAL, "path", "id"),),
    ("POST", "/internal-accounts/{id}/export"): (Place(_INTERNAL, "path", "id"),),
    ("POST", "/quotes"): (
        Place(_INTERNAL, "body", "/source/accountId", beside=("sourceType", "ACCOUNT")),
        Place(_CUSTOMER, "body", "/source/customerId", beside=("sourceType", "REALTIME_FUNDING")),
        Place(_EXTERNAL, "body", "/destination/accountId", beside=("destinationType", "ACCOUNT")),
    ),
    ("POST", "/quotes/{quoteId}/execute"): (Place(_QUOTE, "path", "quoteId"),),
    ("POST", "/quotes/{quoteId}/authorize"): (Place(_QUOTE, "path", "quoteId"),),
    ("POST", "/sandbox/send"): (
        Place(_QUOTE, "body", "/quoteId"),
        Place(_FUNDING_CURRENCY, "body", "/currencyCode"),
    ),
    # the deprecated transfers' body is the reference's (§9: "shapes unchanged", not shown)
    ("POST", "/transfer-in"): (
        Place(_EXTERNAL, "body", "/source/accountId", served_only=True),
        Place(_INTERNAL, "body", "/destination/accountId", served_only=True),
    ),
    ("POST", "/transfer-out"): (
        Place(_INTERNAL, "body", "/source/accountId", served_only=True),
        Place(_EXTERNAL, "body", "/destination/accountId", served_only=True),
    ),
}


def _answered(endpoint: Endpoint, served: bool) -> Mapping[str, str]:
    """The ids ``endpoint``'s answer carries, kind -> pointer; a list's only where its
    envelope is the reference's (its first item)."""
    ids = ANSWERED.get(endpoint.response or "", {})
    if not endpoint.is_list:
        return ids
    return {kind: LIST_ITEM + pointer for kind, pointer in ids.items()} if served else {}


def _set(body: dict[str, Any], pointer: str, value: str) -> None:
    *parents, last = pointer.strip("/").split("/")
    for part in parents:
        body = body.setdefault(part, {})
    body[last] = value


def _link(
    ids: Mapping[str, str], places: list[Place], served: bool
) -> tuple[dict[str, Any], list[str]]:
    """The link's ``parameters`` and ``requestBody``, and the kinds of id it sets."""
    parameters: dict[str, str] = {}
    used: list[str] = []
    body: dict[str, Any] = {}
    # a member set once: the alternatives of §2's source (an accountId or a customerId,
    # with the sourceType each goes with) and a document's holder (a customer or an owner)
    filled: set[str] = set()
    for place in places:
        pointer = ids.get(place.kind)
        if pointer is None or (place.served_only and not served):
            continue
        expression = f"$response.body#{pointer}"
        if place.where == "body":
            parent = place.name.rpartition("/")[0]
            members = [place.name]
            if place.beside is not None:
                members.append(f"{parent}/{place.beside[0]}")
            if not filled.isdisjoint(members):
                continue
            filled.update(members)
            _set(body, place.name, expression)
            if place.beside is not None:
                _set(body, members[1], place.beside[1])
        else:
            parameters[f"{place.where}.{place.name}"] = expression
        used.append(place.kind)
    link: dict[str, Any] = {}
    if parameters:
        link["parameters"] = parameters
    if body:
        link["requestBody"] = body
    return link, used


def id_links(
    source: Endpoint,
    endpoints: tuple[Endpoint, ...],
    served: bool,
    operation_id: Callable[[Endpoint], str],
) -> dict[str, Any]:
    """The links from ``source``'s success answer to every operation that takes the id of
    the record it answers (with the answer's other ids that operation takes), named by the
    target's operation id (``operation_id(endpoint)``)."""
    if source.method == "PATCH":
        return {}  # an update answers ids the walk already holds: the record's own links do
    ids = _answered(source, served)
    if not ids:
        return {}
    links: dict[str, Any] = {}
    own = {kind for kind, pointer in ids.items() if pointer.endswith("/id")}
    for target in endpoints:
        # the record's own id first: where either may go (a document's holder), it goes
        places = sorted(
            TAKEN.get((target.method, target.template), ()), key=lambda p: p.kind not in own
        )
        link, used = _link(ids, places, served)
        if own.isdisjoint(used):
            continue  # another record's id rides along with this one's, never alone
        links[operation_id(target)] = {
            "operationId": operation_id(target),
            **link,
            "description": f"from this {source.response}: {', '.join(used)}",
        }
    return links
