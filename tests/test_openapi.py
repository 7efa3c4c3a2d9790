"""The OpenAPI 3.1 document: generated from our schemas, valid, kept in the repository,
and usable by a peer tool: schemathesis fuzzes the reference with it, every check and phase,
and finds nothing (405 + Allow for undeclared methods)."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from jsonschema import Draft202012Validator

from conformance.contract.endpoint_schemas import ENDPOINTS, WALLET_SIGNED
from conformance.contract.openapi import build_openapi, component_name, render
from conformance.contract.reference_choices import CHOICE_KEY, REQUEST_BODIES, SERVED_ONLY
from conformance.ground.datafiles import schemas_dir

REPO = Path(__file__).resolve().parents[1]
FUZZ_EXAMPLES = 10  # per operation and phase: the whole fuzz takes about 20 s
LINKS_FOLLOWED = 15  # of 97: runs follow 25 to 42 (10 of 14 before the id links)
_STATED_400 = '["2xx", "3xx", "400", "401", "403", "404", "409", "429", "5xx"]'
# The fuzzer's settings: every check; the stateful phase walks the links (positive data:
# a link's body merged into a negative case makes it valid while still labelled negative;
# no inferred links: the declared ones cover the ids), long enough to move money. Where
# the interface states a 400 for a schema-valid request that another record's state or an
# unpublished value decides, the fuzzer expects it where real ids reach: §7 for
# POST /verifications on a decided customer (the ids it saw answered reach every phase),
# §7 and §8 for a quote over the size limit (only the walk gets a quote past its ids).
# Schemathesis reads a POST /customers/external-accounts after a POST /customers as
# addressing the new customer by path; its customer travels in the body, which the walk
# sometimes fills at random on purpose, so a 404 there is no lost resource.
_SCHEMATHESIS_TOML = f"""
[checks]
enabled = true

[phases.stateful]
max-steps = 50
inference.algorithms = []
generation.mode = "positive"
generation.max-examples = 25

[[operations]]
include-name = "POST /verifications"
checks.positive_data_acceptance.expected-statuses = {_STATED_400}

[[operations]]
include-name = "POST /quotes"
phases.stateful.checks.positive_data_acceptance.expected-statuses = {_STATED_400}

[[operations]]
include-name = "POST /customers/external-accounts"
phases.stateful.checks.ensure_resource_availability.enabled = false
"""


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


def test_a_peer_tool_fuzzes_the_reference_with_it(sandbox: Any, tmp_path: Path) -> None:
    """Schemathesis, every check and every phase, finds nothing: the document declares
    what the reference accepts, where the interface is silent too, so no check needs
    excusing beyond the stated 400s of ``_SCHEMATHESIS_TOML``; one sandbox serves the whole
    run (a fuzzed PATCH /config meets other operations as a state they refuse with 409).
    The stateful phase follows the links the ids make, far enough to move money: fund a
    customer's account, quote a payment, pay one (each run reaches one or more of them)."""
    pytest.importorskip("schemathesis", reason="the peer fuzzer is in the `test` extra")
    spec = tmp_path / "openapi.json"
    spec.write_text(render(build_openapi(sandbox.base_url.rsplit("/", 1)[0])), encoding="utf-8")
    settings = tmp_path / "schemathesis.toml"
    settings.write_text(_SCHEMATHESIS_TOML, encoding="utf-8")
    user, secret = sandbox.credentials()
    command = [
        sys.executable,
        "-c",
        "import sys; from schemathesis.cli import schemathesis; sys.exit(schemathesis())",
        "--config-file",
        str(settings),
        "run",
        str(spec),
        "--url",
        sandbox.base_url,
        "--auth",
        f"{user}:{secret}",
        "--phases",
        "examples,coverage,fuzzing,stateful",
        "--max-examples",
        str(FUZZ_EXAMPLES),
        "--generation-deterministic",
        "--report",
        "ndjson",
        "--report-dir",
        str(tmp_path / "report"),
        "--no-color",
    ]
    done = subprocess.run(  # in tmp_path: the fuzzer keeps its own cache folder there
        command, capture_output=True, text=True, timeout=240, check=False, cwd=tmp_path
    )
    output = done.stdout[-6000:] + done.stderr[-2000:]
    assert done.returncode == 0, output
    assert "passed" in done.stdout and " failures" not in done.stdout, output
    assert re.search(r"\bST[0-9]{3}\b", done.stdout) is None, output
    covered = re.search(r"API Links:\s+(\d+) covered / (\d+) selected", done.stdout)
    assert covered is not None and int(covered[1]) >= LINKS_FOLLOWED, output
    money = {
        ("POST", "/sandbox/internal-accounts/{accountId}/fund", 200),
        ("POST", "/quotes", 201),
        ("POST", "/sandbox/send", 200),
    }
    assert money & _linked_answers(tmp_path / "report"), output


def _linked_answers(report: Path) -> set[tuple[str, str, int]]:
    """(method, path, status) of the stateful steps a followed link made, from the run's
    NDJSON report."""
    found = set()
    for line in (report / next(p.name for p in report.iterdir())).read_text().splitlines():
        event = json.loads(line)
        recorder = event.get("ScenarioFinished", {}).get("recorder") or {}
        for case_id, case in (recorder.get("cases") or {}).items():
            answer = (recorder.get("interactions") or {}).get(case_id, {}).get("response")
            if case.get("is_transition_applied") and answer:
                value = case["value"]
                found.add((value["method"], value["path"], answer["status_code"]))
    return found


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
