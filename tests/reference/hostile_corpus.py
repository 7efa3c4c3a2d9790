"""A corpus of hostile requests for every route of the reference, and the records whose ids
fill the routes' paths (tests/reference/test_hostile_requests.py sends them)."""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

import httpx
from starlette.routing import Route

from reference.customers import hosted
from reference.kernel.request_body import JSON_LIMIT
from reference.kernel.routing import ApiRoute
from reference.server.app import ROUTERS

from .card_helpers import card_for
from .customer_helpers import business, created, owner_body
from .money_helpers import execute, external, quote
from .wallet_client_helpers import email_credential

SURROGATE = "Ann \ud800 Lee"  # json.dumps writes it as the escape \ud800, as a client would


@dataclass(frozen=True, slots=True)
class Operation:
    """One method of one route: where to send it, and whether the route reads a body."""

    method: str
    template: str
    reads_body: bool
    limit: int = JSON_LIMIT.max_bytes
    hosted: bool = False

    @property
    def reads_json(self) -> bool:
        """A body read as JSON: every reading route but the larger multipart upload."""
        return self.reads_body and self.limit == JSON_LIMIT.max_bytes


def operations() -> list[Operation]:
    """Every method every route declares, from the app's own route table (HEAD aside)."""
    found: list[Operation] = []
    for routes in ROUTERS:
        for route in routes:
            assert isinstance(route, ApiRoute), f"{route!r} is not declared with api_route"
            for method, operation in sorted(route.operations.items()):
                reads = operation.body or operation.reader is not None
                found.append(Operation(method, route.path, reads, operation.limit.max_bytes))
    for page in hosted.ROUTES:
        assert isinstance(page, Route)
        methods = sorted(set(page.methods or ()) - {"HEAD"})
        found += [Operation(m, page.path, False, hosted=True) for m in methods]
    return found


# -- the records whose ids fill the paths --------------------------------------------------


def record_ids(client: httpx.Client) -> dict[str, str]:
    """Ids of real records, by path parameter name (``id`` is resolved per path)."""
    holder, card = card_for(client, 5_000_000)
    account = holder.account_id()
    outside = external(client, holder.id)["id"]
    quoted = quote(client, account, outside, amount=1_000)["id"]
    executed = execute(client, quote(client, account, outside, amount=1_000)["id"])
    owner = created(client.post("/beneficial-owners", json=owner_body(biz(client))))["id"]
    link = client.post(f"/customers/{holder.id}/kyc-link", json={"redirectUri": "https://e.x/"})
    agent = created(client.post("/agents", json={"customerId": holder.id}))["id"]
    code = created(client.post(f"/agents/{agent}/device-codes"))["deviceCode"]
    invitation = created(client.post("/invitations", json={"inviterCustomerId": holder.id}))
    return {
        "customerId": holder.id,
        "accountId": account,
        "external": outside,
        "quoteId": quoted,
        "transactionId": executed["transactionId"],
        "cardId": card["id"],
        "ownerId": owner,
        "linkId": urlsplit(link.json()["kycUrl"]).path.rsplit("/", 1)[-1],
        "agentId": agent,
        "code": code,
        "invitationId": invitation["id"],
        "credential": email_credential(client, holder.id)["id"],
        "session": "Session:00000000-0000-4000-8000-000000000000",
        "currency": "USD",
        "channel": "email",
        "slug": "end-user-terms",
    }


def biz(client: httpx.Client) -> str:
    return str(created(client.post("/customers", json=business()))["id"])


def path_of(template: str, ids: dict[str, str]) -> str:
    """``template`` with every parameter replaced by a real record's id."""

    def fill(match: re.Match[str]) -> str:
        name = match.group(1)
        if name != "id":
            return ids[name]
        if template.startswith("/auth/credentials"):
            return ids["credential"]
        return ids["session"] if template.startswith("/auth/sessions") else ids["external"]

    return re.sub(r"\{(\w+)\}", fill, template)


# -- the corpus ----------------------------------------------------------------------------

# Bodies every JSON-reading route refuses before its handler runs: 400 INVALID_INPUT.
MALFORMED: dict[str, bytes] = {
    "lone high surrogate": b'{"fullName":"Ann \\ud800 Lee"}',
    "lone low surrogate": b'{"customerId":"\\udc00"}',
    "surrogate in a name": b'{"\\ud83d":1}',
    "surrogate deep in an array": b'{"a":[{"b":["ok","\\udfff"]}]}',
    "reversed pair": b'{"fullName":"\\ude00\\ud83d"}',
    "non-UTF-8 byte": b'{"fullName":"Ann \xff Lee"}',
    "UTF-8 encoded surrogate": b'{"fullName":"\xed\xa0\x80"}',
    "overlong UTF-8": b'{"fullName":"\xc0\xaf"}',
    "UTF-16 body": '{"fullName":"Ann Lee"}'.encode("utf-16"),
    "byte order mark": b'\xef\xbb\xbf{"fullName":"Ann Lee"}',
    "duplicate member": b'{"customerType":"INDIVIDUAL","customerType":"BUSINESS"}',
    "nested duplicate": b'{"a":{"b":1,"b":1}}',
    "NaN": b'{"amount":NaN}',
    "Infinity": b'{"amount":Infinity}',
    "-Infinity": b'{"amount":-Infinity}',
    "float out of range": b'{"amount":1e400}',
    "5000 digits": b'{"amount":' + b"9" * 5000 + b"}",
    "deep arrays": b"[" * 5000 + b"]" * 5000,
    "deep objects": b'{"a":' * 100 + b"1" + b"}" * 100,
    "array": b"[]",
    "array of objects": b'[{"customerType":"INDIVIDUAL"}]',
    "number": b"1",
    "string": b'"x"',
    "null": b"null",
    "true": b"true",
    "truncated": b'{"fullName":',
    "trailing garbage": b"{} {}",
    "raw control character": b'{"fullName":"a\x00b"}',
    "single quotes": b"{'fullName':'Ann'}",
}
# Integers past 64 bits: refused where a field reads them (test_amounts_past_64_bits_name_the
# field), ignored in a member no operation reads; never a 5xx.
WIDE_INTEGERS: dict[str, bytes] = {
    "2^63": b'{"amount":9223372036854775808}',
    "2^64": b'{"amount":18446744073709551616,"lockedCurrencyAmount":18446744073709551616}',
    "-2^63-1": b'{"amount":-9223372036854775809}',
}
# Bodies a route with an optional body may take as none: any answer but a 5xx.
EMPTY: dict[str, bytes] = {"empty": b"", "whitespace": b" \r\n\t "}

FIELDS = [
    "customerId",
    "customerType",
    "fullName",
    "email",
    "phoneNumber",
    "birthDate",
    "nationality",
    "address",
    "businessInfo",
    "currencies",
    "amount",
    "currency",
    "merchant",
    "transactionId",
    "internalAccountId",
    "accountId",
    "source",
    "destination",
    "lockedCurrencySide",
    "lockedCurrencyAmount",
    "redirectUri",
    "code",
    "umaDomain",
    "webhookEndpoint",
    "supportedCurrencies",
    "feeConfigs",
    "cardTokenization2faConfig",
    "roles",
    "ownershipPercentage",
    "personalInfo",
    "name",
    "policy",
    "walletProvider",
    "type",
    "oidcToken",
    "clientPublicKey",
    "encryptedOtpBundle",
    "targetPublicKey",
    "privateEnabled",
    "inviterCustomerId",
    "agreementConsents",
    "endUserTermsConsent",
    "accountInfo",
    "signature",
    "immediatelyExecute",
]
ODD_VALUES: list[Any] = [
    None,
    True,
    0,
    -1,
    2**63 - 1,
    -(2**63),
    1.5,
    "",
    "x" * 5000,
    "\u0000\u202e\uffff",
    [],
    [[[[[]]]]],
    {},
    {"a": {"b": [None, 1, "two"]}},
]


def odd_bodies() -> Iterator[tuple[str, bytes]]:
    """Valid JSON whose every commonly read field has the same wrong value."""
    for value in ODD_VALUES:
        body = {field: value for field in FIELDS}
        yield f"every field {json.dumps(value)[:20]}", json.dumps(body).encode()


def valid_body(template: str, method: str, ids: dict[str, str]) -> dict[str, Any]:
    """A body the route would accept, or a plausible one (the surrogate case needs strings)."""
    bodies: dict[str, dict[str, Any]] = {
        "POST /customers": {
            "customerType": "INDIVIDUAL",
            "fullName": "Ann Lee",
            "email": "ann@example.com",
            "address": {"line1": "1 Main", "city": "Austin", "postalCode": "1", "country": "US"},
        },
        "PATCH /config": {"umaDomain": "pay.example.com", "cardTokenization2faConfig": {"a": "b"}},
        "POST /quotes": {
            "source": {"sourceType": "ACCOUNT", "accountId": ids["accountId"]},
            "destination": {"destinationType": "ACCOUNT", "accountId": ids["external"]},
            "lockedCurrencySide": "SENDING",
            "lockedCurrencyAmount": 100,
        },
    }
    body = bodies.get(f"{method} {template}")
    if body is None:
        body = {"customerId": ids["customerId"], "name": "Ann Lee", "currency": "USD"}
        body.update(amount=100, transactionId=ids["transactionId"], code="000000")
    return copy.deepcopy(body)


def with_surrogate_each(body: Any) -> Iterator[tuple[str, Any]]:
    """``body`` once per string in it (names included), that string holding a surrogate."""
    if isinstance(body, str):
        yield "", SURROGATE
    elif isinstance(body, dict):
        for key, value in body.items():
            yield f".{key} (name)", {**body, key + "\ud800": value}
            for where, changed in with_surrogate_each(value):
                yield f".{key}{where}", {**body, key: changed}
    elif isinstance(body, list):
        for index, value in enumerate(body):
            for where, changed in with_surrogate_each(value):
                yield f"[{index}]{where}", [*body[:index], changed, *body[index + 1 :]]


NON_ASCII_AUTH: dict[str, bytes] = {
    "Basic, latin-1 bytes": b"Basic \xe9t\xe9:\xff",
    "Basic, UTF-8 bytes": "Basic ünïcødé".encode(),
    "Basic, valid base64 then a high byte": b"Basic dTpw\xa0",
    "Bearer, high bytes": b"Bearer \xff\xfe\xfd",
    "no scheme, high bytes": b"\x80\x81\x82",
}
