"""Hostile requests to every route of the reference (issue 24, SANDBOX.md "Request bodies"):
each answered 4xx in the interface's envelope, never 5xx, and the server still answers.

The routes come from the app's route table with the methods each declares; paths carry ids
of real records, so a value that passes the decoding layer meets the handler's own checks.
"""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest

from .hostile_corpus import (
    EMPTY,
    MALFORMED,
    NON_ASCII_AUTH,
    WIDE_INTEGERS,
    Operation,
    odd_bodies,
    operations,
    path_of,
    valid_body,
    with_surrogate_each,
)
from .reference_helpers import RunningSandbox

OPERATIONS = operations()
JSON_TYPE = {"content-type": "application/json"}


def url_of(target: RunningSandbox, operation: Operation, ids: dict[str, str]) -> str:
    root = target.base_url.rsplit("/", 1)[0]  # hosted pages live outside the versioned API
    base = root if operation.hosted else target.base_url
    return base + path_of(operation.template, ids)


def held(response: httpx.Response, context: str) -> dict[str, Any] | None:
    """Never a 5xx; a 4xx of the API carries the interface's error envelope."""
    where = f"{context}: {response.request.method} {response.request.url.path}"
    assert response.status_code < 500, f"{where} answered {response.status_code}: {response.text}"
    if response.status_code < 400 or response.request.url.path.startswith("/hosted/"):
        return None
    body = response.json()
    assert body["status"] == response.status_code, where
    assert isinstance(body["code"], str) and isinstance(body["message"], str), where
    if body["code"] == "INVALID_INPUT":
        errors = body["details"]["errors"]
        assert errors, where
        for error in errors:
            assert {type(error[k]) for k in ("field", "constraint", "message")} == {str}, where
    if response.status_code == 401:
        assert isinstance(body["reason"], str) and body["reason"], where
    result: dict[str, Any] = body
    return result


def refused_as_input(response: httpx.Response, context: str) -> set[tuple[str, str]]:
    """``400 INVALID_INPUT``: the (field, constraint) pairs it lists."""
    body = held(response, context)
    assert response.status_code == 400 and body is not None, f"{context}: {response.text}"
    assert body["code"] == "INVALID_INPUT", f"{context}: {response.text}"
    return {(error["field"], error["constraint"]) for error in body["details"]["errors"]}


def still_answers(client: httpx.Client) -> None:
    response = client.get("/config")
    assert response.status_code == 200, response.text


@pytest.mark.parametrize("operation", OPERATIONS, ids=lambda o: f"{o.method} {o.template}")
def test_malformed_bodies(
    target: RunningSandbox, ids: dict[str, str], operation: Operation
) -> None:
    """Not UTF-8, not JSON, or JSON with what nothing downstream can carry: 400 on every
    route that reads a body, before its handler; ignored (and never a 5xx) elsewhere."""
    url = url_of(target, operation, ids)
    with target.client() as client:
        for name, raw in MALFORMED.items():
            response = client.request(operation.method, url, content=raw, headers=JSON_TYPE)
            if operation.reads_body:
                refused_as_input(response, name)
            else:
                held(response, name)
        for name, raw in {**EMPTY, **WIDE_INTEGERS}.items():
            held(client.request(operation.method, url, content=raw, headers=JSON_TYPE), name)
        still_answers(client)


@pytest.mark.parametrize("operation", OPERATIONS, ids=lambda o: f"{o.method} {o.template}")
def test_wrong_values(target: RunningSandbox, ids: dict[str, str], operation: Operation) -> None:
    """Well-formed JSON whose fields all hold the wrong kind of value (nulls, extremes of
    the 64-bit range, empty and long strings, nesting): the handler's answer, never a 5xx."""
    url = url_of(target, operation, ids)
    with target.client() as client:
        for name, raw in odd_bodies():
            held(client.request(operation.method, url, content=raw, headers=JSON_TYPE), name)
        still_answers(client)


@pytest.mark.parametrize(
    "operation", [o for o in OPERATIONS if o.reads_json], ids=lambda o: f"{o.method} {o.template}"
)
def test_lone_surrogate_in_every_string(
    target: RunningSandbox, ids: dict[str, str], operation: Operation
) -> None:
    """A lone surrogate in each string of a plausible body, member names included: refused,
    naming that string's field (the escape is what a client's JSON encoder writes)."""
    url = url_of(target, operation, ids)
    body = valid_body(operation.template, operation.method, ids)
    with target.client() as client:
        for where, changed in with_surrogate_each(body):
            raw = json.dumps(changed).encode()
            assert b"\\ud800" in raw
            errors = refused_as_input(
                client.request(operation.method, url, content=raw, headers=JSON_TYPE), where
            )
            assert {constraint for _, constraint in errors} == {"UNICODE"}, (where, errors)
            field = where.removesuffix(" (name)").lstrip(".")
            assert any(f.replace("\\ud800", "") == field for f, _ in errors), (where, errors)
        still_answers(client)


@pytest.mark.parametrize("operation", OPERATIONS, ids=lambda o: f"{o.method} {o.template}")
def test_non_ascii_authorization(
    target: RunningSandbox, ids: dict[str, str], operation: Operation
) -> None:
    """Credentials with bytes outside ASCII: 401 with a reason on every API route."""
    url = url_of(target, operation, ids)
    with target.client(None) as anonymous:
        for name, header in NON_ASCII_AUTH.items():
            response = anonymous.request(operation.method, url, headers={"Authorization": header})
            held(response, name)
            if not operation.hosted:
                assert response.status_code == 401, f"{name}: {response.text}"
    with target.client() as client:
        still_answers(client)


def test_amounts_past_64_bits_name_the_field(target: RunningSandbox, ids: dict[str, str]) -> None:
    """The card simulator's amount at 2^63 and beyond, and at the largest 64-bit value:
    refused naming ``amount`` by the handler's own cap; a quote's amount past 64 bits:
    ``INT64`` (integers are bounded where a field reads them)."""
    url = f"/sandbox/cards/{ids['cardId']}/simulate/authorization"
    with target.client() as client:
        for amount in (2**63, 2**64, 10**30):
            raw = b'{"amount":%d}' % amount
            refused = refused_as_input(client.post(url, content=raw), str(amount))
            assert refused == {("amount", "MAXIMUM")}
        assert refused_as_input(client.post(url, json={"amount": 2**63 - 1}), "max") == {
            ("amount", "MAXIMUM")
        }
        nested = {"source": {"sourceType": "ACCOUNT", "accountId": ids["accountId"]}}
        raw = json.dumps({**nested, "lockedCurrencyAmount": 2**63}).encode()
        refused = refused_as_input(client.post("/quotes", content=raw), "quote")
        assert ("lockedCurrencyAmount", "INT64") in refused
        # a sane amount is taken (the corpus may have frozen the card's account: declined)
        assert client.post(url, json={"amount": 1_000}).status_code == 200


def test_null_on_patch(target: RunningSandbox, ids: dict[str, str]) -> None:
    """PATCH /customers refuses null (it means nothing there) listing every such field;
    PATCH /config gives null a meaning where §2 does (the default UMA domain) and refuses
    it where a value must be an array."""
    with target.client() as client:
        customer = f"/customers/{ids['customerId']}"
        nulls = {"fullName": None, "email": None, "address": None, "customerType": None}
        refused = refused_as_input(client.patch(customer, json=nulls), "customer nulls")
        assert refused == {(name, "NOT_NULL") for name in nulls}
        default = client.get("/config").json()["umaDomain"]
        assert client.patch("/config", json={"umaDomain": "pay.example.com"}).status_code == 200
        assert client.patch("/config", json={"umaDomain": None}).json()["umaDomain"] == default
        refused = refused_as_input(
            client.patch("/config", json={"supportedCurrencies": None, "feeConfigs": None}), "cfg"
        )
        assert refused == {("supportedCurrencies", "TYPE_ARRAY"), ("feeConfigs", "TYPE_ARRAY")}


def test_no_unexpected_error_was_logged(target: RunningSandbox, ids: dict[str, str]) -> None:
    """The safety net answers a bug with a 500; the corpus found none (its log is empty)."""
    with target.client() as client:
        still_answers(client)
    assert "unhandled error" not in target.stderr()
