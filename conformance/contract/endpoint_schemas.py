"""Which schema each endpoint's response (and request body) follows.

The map covers every endpoint of §4 whose response shape the interface shows. Paths are
relative to the base URL (``/customers/{customerId}``); a full URL, a path that still
carries the ``/2025-10-13`` version segment, a query string and a trailing slash are all
accepted and normalised away.

List endpoints whose envelope is not shown map to the schema of one item with
``is_list=True``; :func:`list_items` finds the items whether the body is a bare array or an
object holding one array. Error responses map by status: 400 with ``code`` ``INVALID_INPUT``
to ``errors/error-400``, 401 to ``errors/error-401``, every other 4xx/5xx to
``errors/error``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from urllib.parse import urlsplit

from conformance import INTERFACE_VERSION
from conformance.contract import clauses, error_codes

__all__ = [
    "ENDPOINTS",
    "RESOURCE_STATUSES",
    "WALLET_SIGNED",
    "Endpoint",
    "QueryParameter",
    "SchemaRef",
    "list_items",
    "match_endpoint",
    "normalize_path",
    "request_schema",
    "response_schema",
    "webhook_schema",
]

_CUSTOMERS = "Customers and verification"
_ACCOUNTS = "Accounts"
_QUOTES = "Quotes and transactions"
_CONFIG = "Platform configuration"
_SANDBOX = "Cards, stablecoins, agents, auth, sandbox"

# Keys tried, in order, when a list body is an object holding more than one array.
_LIST_KEYS = ("data", "items", "results", "entries", "records", "list")


@dataclass(frozen=True, slots=True)
class QueryParameter:
    """A query parameter §4 names on an endpoint, and the JSON Schema of its value."""

    name: str
    required: bool = False
    schema: Mapping[str, object] = field(default_factory=lambda: {"type": "string"})


# The reference's choice where §4 names a filter but not its values (x-reference-choice:
# the OpenAPI document it serves by declares them; the suite does not hold anyone to them).
_TRANSACTION_STATUS = QueryParameter(
    "status",
    schema={
        "type": "string",
        "x-reference-choice": {
            "enum": ["PENDING", "PROCESSING", "COMPLETED", "FAILED", "EXPIRED"],
            "description": "the transaction statuses; another value is refused",
        },
    },
)
_VERIFICATION_CUSTOMER = QueryParameter(
    "customerId",
    required=True,
    schema={"type": "string", "x-reference-choice": {"minLength": 1}},
)
_TRANSACTION_TYPE = QueryParameter(
    "type",
    schema={
        "type": "string",
        "x-reference-choice": {
            "enum": ["OUTGOING", "INCOMING", "CARD"],
            "description": "payment directions, or card transactions",
        },
    },
)


@dataclass(frozen=True, slots=True)
class Endpoint:
    """One endpoint of §4: its response schema (for 2xx) and request-body schema, if shown,
    and the query parameters §4 names."""

    method: str
    template: str
    section: str
    response: str | None
    is_list: bool = False
    request: str | None = None
    query: tuple[QueryParameter, ...] = ()
    _pattern: re.Pattern[str] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        parts = re.split(r"(\{[^}/]+\})", self.template)
        regex = "".join("[^/]+" if p.startswith("{") else re.escape(p) for p in parts if p)
        object.__setattr__(self, "_pattern", re.compile(f"^{regex}$"))

    @property
    def clause(self) -> str:
        """The clause text a failure cites, e.g. ``§4 Platform configuration — GET /config``."""
        return f"§4 {self.section} — {self.method} {self.template}"

    @property
    def literal_rank(self) -> tuple[int, ...]:
        """1 per fixed word, 0 per placeholder, segment by segment: of two templates that
        match one path the higher wins, so a literal segment beats a parameter at the first
        place they differ (``/customers/external-accounts`` over ``/customers/{customerId}``)."""
        return tuple(0 if s.startswith("{") else 1 for s in self.template.split("/") if s)

    def matches_path(self, path: str) -> bool:
        """Whether a normalised request path falls on this endpoint's template."""
        return self._pattern.match(path) is not None

    def matches(self, method: str, path: str) -> bool:
        """Whether a normalised request path and method fall on this endpoint."""
        return method == self.method and self.matches_path(path)


@dataclass(frozen=True, slots=True)
class SchemaRef:
    """The schema a response (or event) must follow, and where that rule comes from.

    ``name`` is a registry name (``"quote"``, ``"errors/error-400"``). When ``is_list`` is
    true the schema applies to each item of the list (see :func:`list_items`). ``endpoint``
    is the path template (or the normalised path when no template matches), ``clause`` the
    text a failure cites.
    """

    name: str
    is_list: bool
    endpoint: str
    clause: str
    method: str = ""


ENDPOINTS: tuple[Endpoint, ...] = (
    # §4 Customers and verification
    Endpoint("POST", "/customers", _CUSTOMERS, "customer", request="requests/customer-create"),
    Endpoint("GET", "/customers/{customerId}", _CUSTOMERS, "customer"),
    Endpoint(
        "PATCH",
        "/customers/{customerId}",
        _CUSTOMERS,
        "customer",
        request="requests/customer-update",
    ),
    Endpoint(
        "POST",
        "/customers/{customerId}/kyc-link",
        _CUSTOMERS,
        "kyc-link",
        request="requests/kyc-link-create",
    ),
    Endpoint("POST", "/customers/{customerId}/verify-email", _CUSTOMERS, None),
    Endpoint("POST", "/customers/{customerId}/verify-phone", _CUSTOMERS, None),
    Endpoint(
        "POST",
        "/customers/{customerId}/verify-email/confirm",
        _CUSTOMERS,
        None,
        request="requests/contact-confirm",
    ),
    Endpoint(
        "POST",
        "/customers/{customerId}/verify-phone/confirm",
        _CUSTOMERS,
        None,
        request="requests/contact-confirm",
    ),
    Endpoint(
        "POST",
        "/beneficial-owners",
        _CUSTOMERS,
        "beneficial-owner",
        request="requests/beneficial-owner-create",
    ),
    Endpoint("POST", "/documents", _CUSTOMERS, "document"),  # multipart/form-data request
    Endpoint(
        "POST", "/verifications", _CUSTOMERS, "verification", request="requests/verification-create"
    ),
    Endpoint(
        "GET",
        "/verifications",
        _CUSTOMERS,
        "verification",
        query=(_VERIFICATION_CUSTOMER,),  # `?customerId=<id>`
    ),
    Endpoint("GET", "/customers/agreements", _CUSTOMERS, "agreements"),
    Endpoint("GET", "/customers/end-user-terms", _CUSTOMERS, "end-user-terms"),
    # §4 Accounts
    Endpoint(
        "POST",
        "/customers/external-accounts",
        _ACCOUNTS,
        "external-account",
        request="requests/external-account-create",
    ),
    # "ownership verification by wallet signature or hosted liveness check (exact paths and
    # bodies: not shown)": the paths §4 gives, their bodies and answers not shown
    Endpoint("POST", "/customers/external-accounts/{id}/challenge", _ACCOUNTS, None),
    Endpoint("POST", "/customers/external-accounts/{id}/verify", _ACCOUNTS, None),
    Endpoint(
        "GET",
        "/customers/internal-accounts",
        _ACCOUNTS,
        "internal-account",
        is_list=True,
        query=(QueryParameter("customerId"),),  # `?customerId=<id>`
    ),
    Endpoint(
        "POST",
        "/internal-accounts",
        _ACCOUNTS,
        "internal-account",
        request="requests/internal-account-create",
    ),
    Endpoint("PATCH", "/internal-accounts/{id}", _ACCOUNTS, "internal-account"),
    # §4 Quotes and transactions
    Endpoint("POST", "/quotes", _QUOTES, "quote", request="requests/quote-create"),
    Endpoint("POST", "/quotes/{quoteId}/execute", _QUOTES, "quote"),
    Endpoint(
        "POST", "/quotes/{quoteId}/authorize", _QUOTES, "quote", request="requests/quote-authorize"
    ),
    Endpoint(
        "GET",
        "/transactions",
        _QUOTES,
        "transaction-list-item",
        is_list=True,
        # "query filters include cardId (Card: id or uuid), status, type"
        query=(QueryParameter("cardId"), _TRANSACTION_STATUS, _TRANSACTION_TYPE),
    ),
    # "approve an agent-initiated transaction": its body and answer not shown
    Endpoint("POST", "/transactions/{transactionId}/approve", _QUOTES, None),
    Endpoint("POST", "/transfer-in", _QUOTES, "transaction"),
    Endpoint("POST", "/transfer-out", _QUOTES, "transaction"),
    # §4 Platform configuration
    Endpoint("GET", "/config", _CONFIG, "platform-config"),
    Endpoint("PATCH", "/config", _CONFIG, "platform-config", request="requests/config-patch"),
    # §4 Cards, stablecoins, agents, auth, sandbox
    # "values produced by a digital-wallet SDK" -> an encrypted payload (field names not shown)
    Endpoint("POST", "/cards/{id}/tokenize", _SANDBOX, None),
    # "id of the refund row" -> "simulated reversal" (field names not shown)
    Endpoint("POST", "/sandbox/cards/{id}/simulate/return_reversal", _SANDBOX, None),
    # "returns accessToken": the rest of the answer not shown
    Endpoint("POST", "/agents/device-codes/{code}/redeem", _SANDBOX, None),
    Endpoint("POST", "/sca/login/complete", _SANDBOX, "sca-session"),
    Endpoint(
        "POST",
        "/auth/credentials",
        _SANDBOX,
        "wallet-credential",
        request="requests/credential-create",
    ),
    Endpoint(
        "POST",
        "/auth/credentials/{id}/challenge",
        _SANDBOX,
        "wallet-challenge",
        request="requests/credential-challenge",
    ),
    Endpoint(
        "POST",
        "/auth/credentials/{id}/verify",
        _SANDBOX,
        "wallet-verify",
        request="requests/credential-verify",
    ),
    Endpoint("DELETE", "/auth/credentials/{id}", _SANDBOX, None),  # answer not shown
    Endpoint("DELETE", "/auth/sessions/{id}", _SANDBOX, "wallet-session"),
    Endpoint("POST", "/internal-accounts/{id}/export", _ACCOUNTS, None),  # export not shown
    Endpoint("POST", "/sandbox/send", _SANDBOX, "transaction", request="requests/sandbox-send"),
    Endpoint(
        "POST",
        "/sandbox/internal-accounts/{accountId}/fund",
        _SANDBOX,
        "internal-account",
        request="requests/sandbox-fund",
    ),
    Endpoint("POST", "/sandbox/webhooks/test", _SANDBOX, None),  # "sends a TEST event"
)


# §5 embedded wallet items 1 and 4: these answer 202 {payloadToSign, requestId} until the
# signed retry; a 202 follows that schema, never the endpoint's resource schema.
WALLET_SIGNED: frozenset[tuple[str, str]] = frozenset(
    {
        ("POST", "/auth/credentials"),
        ("POST", "/auth/credentials/{id}/verify"),
        ("DELETE", "/auth/credentials/{id}"),
        ("DELETE", "/auth/sessions/{id}"),
        ("POST", "/internal-accounts/{id}/export"),
        ("PATCH", "/internal-accounts/{id}"),
        ("POST", "/quotes/{quoteId}/execute"),
    }
)
# Endpoints whose status §4 does not give: any 2xx carrying the resource is its answer.
ANY_2XX_RESOURCE: frozenset[tuple[str, str]] = frozenset({("POST", "/quotes/{quoteId}/execute")})
_SIGNATURE_CHALLENGE = "wallet-signature-challenge"
# The statuses whose body is the endpoint's resource; other 2xx bodies are not shown.
RESOURCE_STATUSES = frozenset({200, 201})


def normalize_path(path: str) -> str:
    """Reduce a URL or path to the path relative to the base URL.

    Drops scheme and host, the query string and fragment, everything up to and including a
    ``/2025-10-13`` segment, and a trailing slash: ``https://h/v1/2025-10-13/config/?x=1``
    becomes ``/config``.
    """
    route = urlsplit(path).path if "://" in path else path.split("?", 1)[0].split("#", 1)[0]
    marker = f"/{INTERFACE_VERSION}"
    index = route.find(marker + "/")
    if index >= 0:
        route = route[index + len(marker) :]
    elif route.endswith(marker):
        route = "/"
    if not route.startswith("/"):
        route = "/" + route
    return route.rstrip("/") or "/"


def match_endpoint(method: str, path: str) -> Endpoint | None:
    """The endpoint a request falls on: first the path template, whatever the method, with
    fixed words beating placeholders (``/customers/agreements`` is not
    ``/customers/{customerId}``); then the method on that template. A method the template
    does not declare falls on no endpoint, so ``GET /customers/external-accounts`` is never
    read as ``GET /customers/{customerId}``."""
    verb, route = method.upper(), normalize_path(path)
    on_path = [e for e in ENDPOINTS if e.matches_path(route)]
    if not on_path:
        return None
    best = max(e.literal_rank for e in on_path)
    return next((e for e in on_path if e.literal_rank == best and e.method == verb), None)


def _error_ref(verb: str, route: str, status: int, body: object) -> SchemaRef:
    code = error_codes.code_of(body)
    where = f"{verb} {route}"
    if status == 400 and error_codes.carries_code(body, "INVALID_INPUT"):
        clause = f"{clauses.ERRORS} — 400 INVALID_INPUT on {where}"
        return SchemaRef("errors/error-400", False, route, clause, verb)
    if status == 401:
        clause = f"{clauses.ERRORS} and §5 Authentication — 401 UNAUTHORIZED on {where}"
        return SchemaRef("errors/error-401", False, route, clause, verb)
    label = f"{status} {code}" if isinstance(code, str) else str(status)
    return SchemaRef("errors/error", False, route, f"{clauses.ERRORS} — {label} on {where}", verb)


def response_schema(method: str, path: str, status: int, body: object) -> SchemaRef | None:
    """The schema a response must follow, or ``None`` when the interface shows no shape.

    Chosen by method, path template (literal segments before parameters, see
    :func:`match_endpoint`) and status: 200 and 201 of a mapped endpoint follow its resource
    schema; a 202 of a wallet-signed endpoint follows the signature challenge and any other
    202 no schema; 4xx and 5xx responses of any path follow an error schema chosen by status
    and ``code``.
    """
    verb = method.upper()
    endpoint = match_endpoint(verb, path)
    if status >= 400:
        route = endpoint.template if endpoint else normalize_path(path)
        return _error_ref(verb, route, status, body)
    if status == 202 and _answers_resource(endpoint, body):
        assert endpoint is not None and endpoint.response is not None
        return SchemaRef(
            endpoint.response, endpoint.is_list, endpoint.template, endpoint.clause, verb
        )
    if status == 202 and endpoint is not None and (verb, endpoint.template) in WALLET_SIGNED:
        clause = (
            f"{clauses.AUTHENTICATION} — embedded wallet, item 4 "
            f"(202 on {verb} {endpoint.template})"
        )
        return SchemaRef(_SIGNATURE_CHALLENGE, False, endpoint.template, clause, verb)
    if endpoint is None or endpoint.response is None or status not in RESOURCE_STATUSES:
        return None  # a 202 (accepted, or a challenge) is never the resource
    return SchemaRef(endpoint.response, endpoint.is_list, endpoint.template, endpoint.clause, verb)


def _answers_resource(endpoint: Endpoint | None, body: object) -> bool:
    """Whether a 202 is the endpoint's resource rather than a signature challenge: §4 gives
    execute no status and §5 item 4 challenges only a wallet source, so a 202 from execute
    is a challenge only when it has the challenge's shape (``payloadToSign``)."""
    if endpoint is None or endpoint.response is None:
        return False
    if (endpoint.method, endpoint.template) not in ANY_2XX_RESOURCE:
        return False
    return not (isinstance(body, Mapping) and "payloadToSign" in body)


def request_schema(method: str, path: str) -> str | None:
    """The schema name of the request body an endpoint takes, or ``None`` if not shown."""
    endpoint = match_endpoint(method, path)
    return endpoint.request if endpoint else None


def list_items(body: object) -> list[object] | None:
    """The items of a list response whose envelope is not shown.

    A bare array is the list; an object holding exactly one array holds the list; with
    several arrays the first of ``data``, ``items``, ``results``, ``entries``, ``records``,
    ``list`` is taken. Anything else gives ``None``.
    """
    if isinstance(body, list):
        return body
    if not isinstance(body, Mapping):
        return None
    arrays = {key: value for key, value in body.items() if isinstance(value, list)}
    if len(arrays) == 1:
        return next(iter(arrays.values()))
    for key in _LIST_KEYS:
        if key in arrays:
            return arrays[key]
    return None


def webhook_schema(body: object) -> SchemaRef:
    """The schema a webhook delivery follows (§6 Events), chosen by its ``type``."""
    event_type = body.get("type") if isinstance(body, Mapping) else None
    is_test = isinstance(body, Mapping) and (body.get("test") is True or event_type == "TEST")
    if is_test:
        return SchemaRef("webhooks/test-event", False, "webhook", clauses.EVENTS + " — test event")
    if isinstance(event_type, str):
        if event_type.startswith(("OUTGOING_PAYMENT.", "INCOMING_PAYMENT.")):
            clause = f"{clauses.EVENTS} — {event_type} (data is the Transaction)"
            return SchemaRef("webhooks/payment-event", False, "webhook", clause)
        if event_type.startswith("CARD_TRANSACTION."):
            clause = f"{clauses.EVENTS} — {event_type} (data is the card transaction)"
            return SchemaRef("webhooks/card-transaction-event", False, "webhook", clause)
    return SchemaRef("webhooks/envelope", False, "webhook", clauses.EVENTS + " — envelope")
