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

from conformance.contract.endpoint_schemas import ENDPOINTS
from conformance.contract.openapi import build_openapi, component_name, render
from conformance.contract.reference_choices import CHOICE_KEY, REQUEST_BODIES, SERVED_ONLY
from conformance.ground.datafiles import schemas_dir

REPO = Path(__file__).resolve().parents[1]
FUZZ_EXAMPLES = 10  # per operation and phase: the whole fuzz takes about 20 s


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


def test_creating_operations_link_to_those_that_take_their_id() -> None:
    """A stateful tool chains the id a creating POST answers into the operations below its
    collection path; each link names a real operation, one of its parameters, and an id
    the answer's schema has."""
    document = build_openapi()
    operations = {
        op["operationId"]: op for ops in document["paths"].values() for op in ops.values()
    }
    found = set()
    for path, ops in document["paths"].items():
        for method, operation in ops.items():
            for response in operation["responses"].values():
                for link in (response.get("links") or {}).values():
                    target = operations[link["operationId"]]
                    ((parameter, expression),) = link["parameters"].items()
                    assert parameter in {p["name"] for p in target.get("parameters", [])}
                    assert expression == "$response.body#/id"
                    schema = response["content"]["application/json"]["schema"]
                    assert "id" in _resolve(document, schema["$ref"])["properties"], path
                    found.add((f"{method.upper()} {path}", link["operationId"]))
    assert {
        ("POST /customers", "get_customers_customerId"),
        ("POST /customers", "post_customers_customerId_verify_email"),
        ("POST /quotes", "post_quotes_quoteId_execute"),
        ("POST /quotes", "post_quotes_quoteId_authorize"),
        ("POST /internal-accounts", "patch_internal_accounts_id"),
        ("POST /auth/credentials", "post_auth_credentials_id_verify"),
    } <= found, sorted(found)


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

    running = start_sandbox()
    yield running
    running.stop()


def test_a_peer_tool_fuzzes_the_reference_with_it(sandbox: Any, tmp_path: Path) -> None:
    """Schemathesis, every check and every phase (stateful included, following the links),
    finds nothing: the document declares what the reference accepts, where the interface is
    silent too, so no check needs excusing; one sandbox serves the whole run (a fuzzed
    PATCH /config meets other operations as a state they refuse with 409)."""
    pytest.importorskip("schemathesis", reason="the peer fuzzer is in the `test` extra")
    spec = tmp_path / "openapi.json"
    spec.write_text(render(build_openapi(sandbox.base_url.rsplit("/", 1)[0])), encoding="utf-8")
    user, secret = sandbox.credentials()
    command = [
        sys.executable,
        "-c",
        "import sys; from schemathesis.cli import schemathesis; sys.exit(schemathesis())",
        "run",
        str(spec),
        "--url",
        sandbox.base_url,
        "--auth",
        f"{user}:{secret}",
        "--checks",
        "all",
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
