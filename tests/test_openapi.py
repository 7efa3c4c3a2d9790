"""The OpenAPI 3.1 document: generated from our schemas, valid, kept in the repository,
and usable by a peer tool: schemathesis fuzzes the reference with it, every check and phase,
and finds nothing (405 + Allow for undeclared methods)."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from jsonschema import Draft202012Validator

from conformance.contract.endpoint_schemas import ENDPOINTS, WALLET_SIGNED
from conformance.contract.openapi import REFUSED_KEY, build_openapi, component_name, render
from conformance.contract.reference_choices import (
    CHOICE_KEY,
    PAGED,
    REQUEST_BODIES,
    SERVED_ONLY,
)
from conformance.ground.datafiles import schemas_dir
from tests import schemathesis_runs

REPO = Path(__file__).resolve().parents[1]
# of the declared links, the share the stateful phase must follow under each seed
LINKS_SHARE = 0.5
# one at least: fund a customer's account, quote a payment, pay one
_MONEY = {
    ("POST", "/sandbox/internal-accounts/{accountId}/fund", 200),
    ("POST", "/quotes", 201),
    ("POST", "/sandbox/send", 200),
}


def _refs(node: Any) -> Iterator[str]:
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "$ref" and isinstance(value, str):
                yield value
            else:
                yield from _refs(value)
    elif isinstance(node, list):
        for item in node:
            yield from _refs(item)


def _resolve(document: dict[str, Any], ref: str) -> Any:
    assert ref.startswith("#/"), ref
    node: Any = document
    for part in ref[2:].split("/"):
        node = node[part.replace("~1", "/").replace("~0", "~")]
    return node


def test_the_committed_document_is_the_generated_one() -> None:
    committed = (REPO / "openapi.json").read_text(encoding="utf-8")
    assert committed == render(build_openapi()), (
        "openapi.json is stale: run `conformance openapi -o openapi.json`"
    )


def test_every_endpoint_and_schema_is_in_it_and_every_ref_resolves() -> None:
    document = build_openapi()
    for endpoint in ENDPOINTS:
        assert endpoint.method.lower() in document["paths"][endpoint.template]
    components = document["components"]["schemas"]
    for path in schemas_dir().rglob("*.json"):
        assert component_name(path.relative_to(schemas_dir()).as_posix()) in components
    for ref in _refs(document):
        _resolve(document, ref)
    for schema in components.values():
        Draft202012Validator.check_schema(schema)
    for method, template in WALLET_SIGNED:  # §5 item 4: the signed retry's headers
        operation = document["paths"][template][method.lower()]
        headers = {p["name"] for p in operation["parameters"] if p["in"] == "header"}
        assert {"Service-Wallet-Signature", "Request-Id"} <= headers, (method, template)


def test_the_reference_choices_are_in_the_served_document_only() -> None:
    """``x-reference-choice`` keywords are merged into the document the reference serves
    by and left out of the interface's own, with the operations and bodies §4 does not
    show; the suite's schemas keep them as annotations a validator ignores."""
    served, interface = build_openapi(), build_openapi(served=False)
    text = json.dumps(interface)
    assert CHOICE_KEY not in text and "requests.Transfer" not in text
    for method, template in REQUEST_BODIES:
        assert "requestBody" in served["paths"][template][method.lower()]
        assert "requestBody" not in interface["paths"][template][method.lower()]
    for endpoint in SERVED_ONLY:
        assert endpoint.method.lower() in served["paths"][endpoint.template]
        assert endpoint.method.lower() not in interface["paths"].get(endpoint.template, {})
    marked = [
        node
        for node in _nodes(served["components"]["schemas"])
        if isinstance(node.get(CHOICE_KEY), list)
    ]
    assert marked and all(set(node[CHOICE_KEY]) <= set(node) for node in marked)


def _nodes(node: Any) -> Iterator[dict[str, Any]]:
    if isinstance(node, dict):
        yield node
        for value in node.values():
            yield from _nodes(value)
    elif isinstance(node, list):
        for item in node:
            yield from _nodes(item)


def _members(document: dict[str, Any], schema: Any, pointer: str) -> list[Any]:
    """The subschemas of ``schema`` a JSON pointer into its instance reaches, through
    ``$ref``, ``allOf``/``anyOf``/``if``-``then``, ``properties`` and ``items``."""
    nodes = [schema]
    for part in [p for p in pointer.split("/") if p]:
        found, seen = [], list(nodes)
        while seen:
            node = seen.pop()
            if not isinstance(node, dict):
                continue
            if "$ref" in node:
                seen.append(_resolve(document, node["$ref"]))
            seen += node.get("allOf", []) + node.get("anyOf", []) + [node.get("then")]
            if part.isdigit() and "items" in node:
                found.append(node["items"])
            if part in node.get("properties", {}):
                found.append(node["properties"][part])
        nodes = found
    return nodes


def _names(document: dict[str, Any], nodes: list[Any]) -> set[str]:
    """The component names the nodes are, or refer to (one level of ``anyOf``)."""
    names = set()
    for node in nodes:
        for ref in [node.get("$ref")] + [n.get("$ref") for n in node.get("anyOf", [])]:
            if ref:
                names.add(ref.rsplit("/", 1)[-1])
                names |= _names(document, _resolve(document, ref).get("anyOf", []))
    return names


def _links_of(document: dict[str, Any]) -> Iterator[tuple[str, dict[str, Any], dict[str, Any]]]:
    for path, ops in document["paths"].items():
        for method, operation in ops.items():
            for response in operation["responses"].values():
                for link in (response.get("links") or {}).values():
                    yield f"{method.upper()} {path}", response, link


def test_links_carry_the_ids_the_interface_passes_around() -> None:
    """A stateful tool chains a record's id into the operations that take it: each link
    names a real operation and its parameters or body members, and takes from the answer
    only an id its schema types as one (``Common.CustomerId``...) or the record's own
    ``id``, or the funding currency §4 says a sandbox payment repeats; a list's envelope
    is the reference's choice, so its links are in the served document only."""
    document = build_openapi()
    operations = {o["operationId"]: o for ops in document["paths"].values() for o in ops.values()}
    found = set()
    for source, response, link in _links_of(document):
        target = operations[link["operationId"]]
        answer = response["content"]["application/json"]["schema"]
        answer = answer.get("anyOf", [{}])[0].get("items", answer)  # a list's item
        answer = answer.get("properties", {}).get("data", {}).get("items", answer)  # a page's
        taken = {f"{p['in']}.{p['name']}" for p in target.get("parameters", [])}
        expressions = dict(link.get("parameters", {}))
        assert set(expressions) <= taken, (source, link)
        body = target.get("requestBody", {}).get("content", {})
        request = next(iter(body.values()), {}).get("schema")
        for pointer, expression in _leaves(link.get("requestBody", {})):
            assert _members(document, request, pointer), (source, link, pointer)
            if expression.startswith("$"):
                expressions[pointer] = expression
        for expression in expressions.values():
            pointer = expression.removeprefix("$response.body#").removeprefix("/data/0")
            named = _names(document, _members(document, answer, pointer))
            typed = {n for n in named if n.endswith("Id") or n == "Common.CurrencyCode"}
            # a record whose fields are not shown (a credential) is named by its own id
            assert typed or pointer == "/id", (source, link)
        found.add((source, link["operationId"]))
    assert {
        ("POST /customers", "get_customers_customerId"),
        ("POST /customers", "post_customers_external_accounts"),
        ("POST /customers", "post_verifications"),
        ("GET /customers/internal-accounts", "post_sandbox_internal_accounts_accountId_fund"),
        ("POST /customers/external-accounts", "post_quotes"),
        ("POST /sandbox/internal-accounts/{accountId}/fund", "post_quotes"),
        ("POST /quotes", "post_quotes_quoteId_execute"),
        ("POST /quotes", "post_sandbox_send"),
        ("POST /beneficial-owners", "post_documents"),
        ("POST /auth/credentials", "post_auth_credentials_id_verify"),
    } <= found, sorted(found)
    assert "/data/0" not in json.dumps(build_openapi(served=False)["paths"])


def _leaves(body: dict[str, Any], prefix: str = "") -> Iterator[tuple[str, str]]:
    for key, value in body.items():
        if isinstance(value, dict):
            yield from _leaves(value, f"{prefix}/{key}")
        else:
            yield f"{prefix}/{key}", value


# §4's endpoint tables, row by row (the ones whose shapes it does not show included)
_INTERFACE_OPERATIONS = {
    "POST /customers", "GET /customers/{customerId}", "PATCH /customers/{customerId}",
    "POST /customers/{customerId}/kyc-link", "POST /customers/{customerId}/verify-email",
    "POST /customers/{customerId}/verify-phone",
    "POST /customers/{customerId}/verify-email/confirm",
    "POST /customers/{customerId}/verify-phone/confirm", "POST /beneficial-owners",
    "POST /documents", "POST /verifications", "GET /verifications",
    "GET /customers/agreements", "GET /customers/end-user-terms",
    "POST /customers/external-accounts", "POST /customers/external-accounts/{id}/challenge",
    "POST /customers/external-accounts/{id}/verify", "GET /customers/internal-accounts",
    "POST /internal-accounts", "POST /internal-accounts/{id}/export",
    "PATCH /internal-accounts/{id}", "POST /quotes", "POST /quotes/{quoteId}/execute",
    "POST /quotes/{quoteId}/authorize", "GET /transactions",
    "POST /transactions/{transactionId}/approve", "POST /transfer-in", "POST /transfer-out",
    "GET /config", "PATCH /config", "POST /cards/{id}/tokenize",
    "POST /sandbox/cards/{id}/simulate/return_reversal",
    "POST /agents/device-codes/{code}/redeem", "POST /sca/login/complete",
    "POST /auth/credentials", "POST /auth/credentials/{id}/challenge",
    "POST /auth/credentials/{id}/verify", "DELETE /auth/credentials/{id}",
    "DELETE /auth/sessions/{id}", "POST /sandbox/send",
    "POST /sandbox/internal-accounts/{accountId}/fund", "POST /sandbox/webhooks/test",
}  # fmt: skip


def test_every_operation_the_interface_names_is_in_both_documents() -> None:
    for served in (True, False):
        paths = build_openapi(served=served)["paths"]
        declared = {f"{m.upper()} {p}" for p, ops in paths.items() for m in ops}
        assert declared >= _INTERFACE_OPERATIONS, sorted(_INTERFACE_OPERATIONS - declared)


def test_every_list_declares_the_reference_pagination() -> None:
    """SANDBOX.md "Lists": ``limit`` 1..100 (default 100) and an opaque ``cursor``, answered
    as ``{data, nextCursor}``: the served document's choice, absent from the interface's."""
    served, interface = build_openapi(), build_openapi(served=False)
    for method, path in PAGED:
        operation = served["paths"][path][method.lower()]
        query = {p["name"]: p for p in operation["parameters"] if p["in"] == "query"}
        limit = query["limit"]["schema"]
        assert (limit["type"], limit["minimum"], limit["maximum"]) == ("integer", 1, 100)
        assert limit["default"] == 100 and query["cursor"]["schema"]["type"] == "string"
        page = operation["responses"]["200"]["content"]["application/json"]["schema"]
        assert page["required"] == ["data", "nextCursor"]
        assert page["properties"]["nextCursor"]["type"] == ["string", "null"]
        assert "cursor" in operation["responses"]["400"][REFUSED_KEY][0]
        mine = interface["paths"].get(path, {}).get(method.lower(), {})
        assert "cursor" not in json.dumps(mine.get("parameters", [])), path


def _integers(document: dict[str, Any], node: Any, pointer: str, seen: frozenset[str]) -> Any:
    """(instance pointer, schema node) of every node that may type an integer, through
    ``$ref``, the applicators, ``properties`` and ``items``."""
    if not isinstance(node, dict):
        return
    types = node.get("type")
    if types == "integer" or (isinstance(types, list) and "integer" in types):
        yield pointer, node
    ref = node.get("$ref")
    if isinstance(ref, str) and ref not in seen:
        yield from _integers(document, _resolve(document, ref), pointer, seen | {ref})
    for key in ("allOf", "anyOf", "oneOf"):
        for branch in node.get(key, []):
            yield from _integers(document, branch, pointer, seen)
    for key in ("then", "else"):
        yield from _integers(document, node.get(key), pointer, seen)
    for name, sub in (node.get("properties") or {}).items():
        yield from _integers(document, sub, f"{pointer}/{name}", seen)
    yield from _integers(document, node.get("items"), f"{pointer}/0", seen)


def test_every_integer_a_request_carries_is_bounded() -> None:
    """The reference bounds every integer it reads (amounts at 10^15, SQLite's 64 bits at
    most) and the served document says where: each integer place of a request body or a
    parameter has a minimum and a maximum among the schemas that reach it, so a fuzzer
    never meets a refusal the document did not foretell (ST202 on a 2^64 fixedFee)."""
    document = build_openapi()
    unbounded = []
    for path, operations in document["paths"].items():
        for method, operation in operations.items():
            roots = [(f"/{p['name']}", p["schema"]) for p in operation.get("parameters", [])]
            for content in operation.get("requestBody", {}).get("content", {}).values():
                roots.append(("", content.get("schema", {})))
            for base, schema in roots:
                places = {pointer for pointer, _ in _integers(document, schema, base, frozenset())}
                for pointer in places:
                    reached = _members(document, schema, pointer.removeprefix(base))
                    reached += [n for _, n in _integers(document, schema, base, frozenset())
                                if _ == pointer]  # fmt: skip
                    if not any("maximum" in n for n in reached if isinstance(n, dict)):
                        unbounded.append(f"{method.upper()} {path} {pointer}")
    # the interface's other reading of a fee (a money object), which the reference's integer
    # type for the member excludes
    assert unbounded == ["PATCH /config /feeConfigs/0/fixedFee/amount"], unbounded


def test_it_validates_as_openapi_3_1() -> None:
    schemathesis = pytest.importorskip(
        "schemathesis", reason="schemathesis (the `test` extra) holds the OpenAPI 3.1 meta-schema"
    )
    for served in (True, False):
        schema = schemathesis.openapi.from_dict(build_openapi(served=served))
        schema.validate()
        extra = len(SERVED_ONLY) if served else 0
        assert len(list(schema.get_all_operations())) == len(ENDPOINTS) + extra


@pytest.fixture(scope="module")
def sandbox() -> Iterator[Any]:
    from tests.reference.reference_helpers import start_sandbox

    # regulated: a customer is decided at creation, so a stateful walk moves money
    running = start_sandbox("--regulated")
    yield running
    running.stop()


@pytest.mark.long(50)  # seconds, measured
@pytest.mark.parametrize("slot", range(schemathesis_runs.SEEDS), ids=lambda s: f"seed{s + 1}")
def test_a_peer_tool_fuzzes_the_reference_with_it(
    slot: int, tmp_path: Path, record_property: Any
) -> None:
    """Schemathesis, every check and every phase, under a seed drawn for this run (printed),
    finds nothing: the document declares what the reference accepts, where the interface is
    silent too, and the 400s no schema can foretell; no check needs excusing beyond the
    stated 400s (``schemathesis_runs``). A CI run fuzzes a third of the operations per seed,
    20 examples each, all three together every operation. The thorough tier
    (``SELFTEST_THOROUGH=1``) fuzzes every operation with 100 examples and walks the links
    under every seed, far enough to move money (fund a customer's account, quote a payment,
    pay one: each walk reaches one or more of them), each walk following at least half the
    declared links."""
    pytest.importorskip("schemathesis", reason="the peer fuzzer is in the `test` extra")
    from tests.reference.reference_helpers import start_sandbox

    seed = schemathesis_runs.draw_seed()
    record_property("schemathesis_seed", seed)  # in the JUnit XML, whatever the outcome
    print(f"schemathesis seed {seed} (slot {slot + 1})")
    # regulated: a customer is decided at creation, so a stateful walk moves money
    running = start_sandbox("--regulated")
    try:
        outcome = schemathesis_runs.fuzz(running, tmp_path, seed, slot)
    finally:
        running.stop()
    covered, selected = outcome.links
    record_property("schemathesis_links", f"{covered}/{selected}")
    print(f"schemathesis seed {seed}: links {covered}/{selected}, {outcome.seconds:.0f} s")
    output = f"seed {seed} (replay: --seed {seed})\n" + (outcome.failures or outcome.output[-8000:])
    assert outcome.returncode == 0, output
    assert "passed" in outcome.output and " failures" not in outcome.output, output
    assert re.search(r"\bST[0-9]{3}\b", outcome.output) is None, output
    if schemathesis_runs.walks(slot):  # the thorough tier's
        assert _MONEY & outcome.linked_answers, output
        assert selected and covered >= LINKS_SHARE * selected, output


@pytest.mark.parametrize(
    ("method", "path", "allowed"),
    [("DELETE", "/config", {"GET", "PATCH"}), ("PUT", "/quotes", {"POST"})],
)
def test_undeclared_methods_answer_405_with_allow(
    sandbox: Any, method: str, path: str, allowed: set[str]
) -> None:
    with sandbox.client() as client:
        answer = client.request(method, path)
    assert answer.status_code == 405
    assert allowed <= {m.strip() for m in answer.headers["allow"].split(",")}
    assert isinstance(answer, httpx.Response) and json.loads(answer.content)
