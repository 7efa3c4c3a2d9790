"""An OpenAPI 3.1 document of the interface, generated from our schemas and endpoint map.

Every JSON Schema of ``schemas/`` becomes a component (``Quote``, ``requests.QuoteCreate``,
``errors.Error400``); each of its ``$defs`` one more (``Common.Timestamp``), and every
``$ref`` is rewritten to point at the components, so the document stands alone. The paths
are the endpoints of ``contract.ENDPOINTS`` (every one §4's tables name): their request
bodies, their 2xx resource (a list endpoint's envelope is not shown: an array of the item or
an object; the served document declares the reference's pages), the 202 signature challenge
of wallet-signed calls, and the error bodies of §7 (400 ``INVALID_INPUT``, 401, any other
4xx/5xx). Webhook envelopes are under ``webhooks``. Authentication is HTTP Basic (§5);
wallet-signed operations declare the signed retry's headers. Each success answer links to
the operations that take the ids it carries (:mod:`conformance.contract.openapi_links`), for
a tool that chains requests.

``conformance openapi [--output FILE]`` writes it; ``openapi.json`` at the repository root
is this document, kept equal by a self-test.
"""

from __future__ import annotations

import copy
import json
import posixpath
import re
from pathlib import Path
from typing import Any

from conformance import INTERFACE_VERSION, SUITE_VERSION
from conformance.contract import error_codes
from conformance.contract.endpoint_schemas import (
    ENDPOINTS,
    WALLET_SIGNED,
    Endpoint,
    QueryParameter,
)
from conformance.contract.openapi_links import id_links
from conformance.contract.reference_choices import (
    CHOICE_KEY,
    EXTRA_QUERY,
    PAGE_QUERY,
    PAGED,
    REFUSED_BEYOND_SCHEMA,
    REQUEST_BODIES,
    SERVED_ONLY,
    apply_schema_choices,
)
from conformance.ground.datafiles import schemas_dir

__all__ = [
    "REFUSED_KEY",
    "build_openapi",
    "component_name",
    "main",
    "operation_id",
    "render",
]

_DROP = ("$schema", "$id", "$defs")
# On a 400 answer: why the reference refuses some requests its schemas admit (a list of
# reasons), for a peer tool that judges whether a valid request was refused.
REFUSED_KEY = "x-refused-beyond-schema"
_PARAM = re.compile(r"\{([^}/]+)\}")
_OPERATION_ID = re.compile(r"[^A-Za-z0-9]+")
# Headers §4 names on an operation: the Idempotency-Key of account creation (§8 Limits: up
# to 255 characters) and of a KYC link (no bound stated).
_IDEMPOTENCY = "Idempotency-Key"
_HEADERS: dict[tuple[str, str], dict[str, Any]] = {
    ("POST", "/internal-accounts"): {"type": "string", "maxLength": 255},
    ("POST", "/customers/{customerId}/kyc-link"): {"type": "string"},
}
_HEADER_CHOICE = {"minLength": 1, "maxLength": 255}  # the reference's bound, both operations
# §5 item 4: a wallet-signed operation's retry carries the signature and the challenge's
# request id (its first call, without them, answers 202 with payloadToSign and requestId).
_WALLET_HEADERS = (
    ("Service-Wallet-Signature", "§5: a P-256 signature over payloadToSign, on the retry"),
    ("Request-Id", "§5: the requestId of the 202 challenge, echoed on the retry"),
)
# Operations whose body is sent only sometimes (§4: an OTP credential's challenge has none).
_BODY_OPTIONAL = {("POST", "/auth/credentials/{id}/challenge")}
# Rules §4 states across the query parameters of one operation.
_QUERY_TOGETHER: dict[tuple[str, str], dict[str, Any]] = {
    ("GET", "/transactions"): {
        "not": {"required": ["status", "type"], "properties": {"type": {"const": "CARD"}}},
        "description": "§4 Quotes and transactions: `status` combined with `type=CARD` returns 400",
    },
}


def component_name(file: str, definition: str | None = None) -> str:
    """``requests/quote-create.json`` -> ``requests.QuoteCreate``; with a ``$defs`` key,
    ``common.json`` + ``Timestamp`` -> ``Common.Timestamp``. The schema's own name is in
    PascalCase, as OpenAPI tools expect: a tool that reads ``customerId`` as the id of a
    ``Customer`` (a stateful fuzzer choosing where to start) finds the component by it."""
    folder, _, name = file.removesuffix(".json").rpartition("/")
    pascal = "".join(part[:1].upper() + part[1:] for part in name.split("-"))
    base = f"{folder.replace('/', '.')}.{pascal}" if folder else pascal
    return f"{base}.{definition}" if definition else base


def _rewrite(node: Any, file: str) -> Any:
    """Copy ``node`` with every ``$ref`` of ``file`` pointing into ``#/components/schemas``."""
    if isinstance(node, dict):
        out = {}
        for key, value in node.items():
            if key == "$ref" and isinstance(value, str):
                out[key] = _target(value, file)
            else:
                out[key] = _rewrite(value, file)
        return out
    if isinstance(node, list):
        return [_rewrite(item, file) for item in node]
    return node


def _target(ref: str, file: str) -> str:
    location, _, pointer = ref.partition("#")
    target = (
        posixpath.normpath(posixpath.join(posixpath.dirname(file), location)) if location else file
    )
    parts = [p for p in pointer.split("/") if p]
    if parts[:1] == ["$defs"] and len(parts) >= 2:
        rest = "/".join(parts[2:])
        name = component_name(target, parts[1])
    else:
        rest = "/".join(parts)
        name = component_name(target)
    return f"#/components/schemas/{name}" + (f"/{rest}" if rest else "")


def _components(root: Path, served: bool) -> dict[str, Any]:
    components: dict[str, Any] = {}
    for path in sorted(root.rglob("*.json")):
        file = path.relative_to(root).as_posix()
        document = json.loads(path.read_text(encoding="utf-8"))
        if isinstance(document.get(CHOICE_KEY), str) and not served:
            continue  # a whole schema of the reference's choosing
        document = apply_schema_choices(document, served=served)
        for key, definition in (document.get("$defs") or {}).items():
            components[component_name(file, key)] = _rewrite(definition, file)
        top = {k: v for k, v in document.items() if k not in _DROP}
        components[component_name(file)] = _rewrite(top, file)
    return components


def _ref(name: str) -> dict[str, str]:
    return {"$ref": f"#/components/schemas/{component_name(name + '.json')}"}


def _json(schema: dict[str, Any], description: str) -> dict[str, Any]:
    return {"description": description, "content": {"application/json": {"schema": schema}}}


def _query(parameter: QueryParameter, served: bool) -> dict[str, Any]:
    return {
        "name": parameter.name,
        "in": "query",
        "required": parameter.required,
        "schema": apply_schema_choices(dict(parameter.schema), served=served),
    }


def _query_object(
    query: tuple[QueryParameter, ...], rule: dict[str, Any], served: bool
) -> dict[str, Any]:
    """The query parameters of an operation whose interface states a rule across them, as
    one exploded ``form`` object (``?status=X&type=Y``): OpenAPI has no other place for a
    rule between two parameters."""
    return {
        "name": "filters",
        "in": "query",
        "style": "form",
        "explode": True,
        "required": any(q.required for q in query),
        "schema": {
            "type": "object",
            "properties": {q.name: _query(q, served)["schema"] for q in query},
            "required": [q.name for q in query if q.required],
            "additionalProperties": True,
            **rule,
        },
    }


def _success(endpoint: Endpoint, served: bool) -> dict[str, Any]:
    """The success answers: the resource, a list (paged, in the served document), or a
    body the interface does not show."""
    method, template = endpoint.method, endpoint.template
    paged = (method, template) in PAGED and served
    if endpoint.response is None:
        return {"2XX": {"description": "success; the body is not shown by the interface"}}
    if paged:
        component = PAGED[(method, template)]
        item = {"$ref": f"#/components/schemas/{component}"} if component else None
        page = _page(item or _ref(endpoint.response))
        return {"200": _json(page, "a page of the list (the envelope is the reference's)")}
    if endpoint.is_list:
        item = _ref(endpoint.response)
        schema = {"anyOf": [{"type": "array", "items": item}, {"type": "object"}]}
        return {
            "200": _json(
                schema, "the list (its envelope is not shown: an array or an object holding one)"
            )
        }
    # a POST answers 200 or 201 (the suite accepts both); other verbs answer 200
    return {
        "2XX" if method == "POST" else "200": _json(
            _ref(endpoint.response), f"the {endpoint.response} resource"
        )
    }


def _page(item: dict[str, Any]) -> dict[str, Any]:
    return {
        "type": "object",
        "required": ["data", "nextCursor"],
        "properties": {
            "data": {"type": "array", "items": item},
            "nextCursor": {
                "type": ["string", "null"],
                "description": "the cursor of the next page; null on the last",
            },
        },
        CHOICE_KEY: "the reference's page: §4 shows no list envelope",
    }


def _responses(endpoint: Endpoint, served: bool) -> dict[str, Any]:
    key = (endpoint.method, endpoint.template)
    responses = _success(endpoint, served)
    if key in WALLET_SIGNED:
        responses["202"] = _json(
            _ref("wallet-signature-challenge"), "§5 embedded wallet: sign this payload and retry"
        )
    # §7 names 400s with other codes (a customer's final status, a size limit): a 400 is the
    # validation envelope when its code is INVALID_INPUT, as the suite maps it
    invalid_input = error_codes.value_anywhere("INVALID_INPUT")  # whichever member holds it
    responses["400"] = _json(
        {"if": invalid_input, "then": _ref("errors/error-400"), "else": _ref("errors/error")},
        "§7 Errors: INVALID_INPUT with details.errors[], or another code",
    )
    refused = REFUSED_BEYOND_SCHEMA.get(key, ()) if served else ()
    if refused:
        # what no schema can state: a peer tool reads that this 400 may meet a valid request
        reasons = "; ".join(refused)
        responses["400"]["description"] += f"; also for a request the schemas admit: {reasons}"
        responses["400"][REFUSED_KEY] = list(refused)
    responses["401"] = _json(_ref("errors/error-401"), "§5 Authentication: not authenticated")
    responses["4XX"] = _json(_ref("errors/error"), "§7 Errors")
    responses["5XX"] = _json(_ref("errors/error"), "§7 Errors")
    return responses


def _headers(endpoint: Endpoint, served: bool) -> list[dict[str, Any]]:
    key = (endpoint.method, endpoint.template)
    parameters: list[dict[str, Any]] = []
    header = _HEADERS.get(key)
    if header is not None:
        schema = apply_schema_choices({**header, CHOICE_KEY: _HEADER_CHOICE}, served=served)
        parameters.append(
            {"name": _IDEMPOTENCY, "in": "header", "required": False, "schema": schema}
        )
    if key in WALLET_SIGNED:
        parameters += [
            {
                "name": name,
                "in": "header",
                "required": False,
                "description": description,
                "schema": {"type": "string"},
            }
            for name, description in _WALLET_HEADERS
        ]
    return parameters


def _parameters(endpoint: Endpoint, served: bool) -> list[dict[str, Any]]:
    """Path, query and header parameters."""
    key = (endpoint.method, endpoint.template)
    parameters = [
        {"name": n, "in": "path", "required": True, "schema": {"type": "string", "minLength": 1}}
        for n in _PARAM.findall(endpoint.template)
    ]
    query = endpoint.query
    if served:
        query += EXTRA_QUERY.get(key, ()) + (PAGE_QUERY if key in PAGED else ())
    together = _QUERY_TOGETHER.get(key)
    # the served document names such a rule among the 400s beyond its schemas instead: a
    # tool fuzzing the object sends it as one parameter the reference ignores (`?filters=`)
    if together is not None and query and not served:
        parameters.append(_query_object(query, together, served))
    else:
        parameters += [_query(q, served) for q in query]
    return parameters + _headers(endpoint, served)


def _request_body(endpoint: Endpoint, served: bool) -> dict[str, Any] | None:
    method, template = endpoint.method, endpoint.template
    request = endpoint.request or (REQUEST_BODIES.get((method, template)) if served else None)
    if request is not None:
        return {
            "required": (method, template) not in _BODY_OPTIONAL,
            "content": {"application/json": {"schema": _ref(request)}},
        }
    if template != "/documents":
        return None
    # the form's fields are §2 Document's; which it requires is the reference's choice
    form: dict[str, Any] = {"schema": {"type": "object"}}
    if served:
        # the reference reads `file` only as a file part, one carrying a filename
        disposition = 'form-data; name="file"; filename="document.pdf"'
        file_part = {
            "contentType": "application/pdf",
            "headers": {
                "Content-Disposition": {"schema": {"type": "string"}, "example": disposition}
            },
        }
        form = {"schema": _ref("requests/document-upload"), "encoding": {"file": file_part}}
    return {"required": True, "content": {"multipart/form-data": form}}


def _operation(endpoint: Endpoint, served: bool) -> dict[str, Any]:
    operation: dict[str, Any] = {
        "operationId": operation_id(endpoint),
        "summary": f"{endpoint.method} {endpoint.template}",
        "description": endpoint.clause,
        "tags": [endpoint.section],
        "responses": _responses(endpoint, served),
    }
    parameters = _parameters(endpoint, served)
    if parameters:
        operation["parameters"] = parameters
    body = _request_body(endpoint, served)
    if body is not None:
        operation["requestBody"] = body
    return operation


def operation_id(endpoint: Endpoint) -> str:
    """``POST /quotes/{quoteId}/execute`` -> ``post_quotes_quoteId_execute``."""
    return _OPERATION_ID.sub("_", f"{endpoint.method.lower()}{endpoint.template}").strip("_")


def _links(creator: Endpoint, endpoints: tuple[Endpoint, ...]) -> dict[str, Any]:
    """The operations that take the id of what ``creator`` answers: a resource created at
    a collection path is addressed below it (``POST /quotes`` -> ``/quotes/{quoteId}/...``),
    by the first parameter there. A tool chaining requests (a stateful fuzzer) follows them."""
    if creator.method != "POST" or creator.response is None or creator.is_list:
        return {}
    prefix = creator.template + "/{"
    links: dict[str, Any] = {}
    for endpoint in endpoints:
        if endpoint.template.startswith(prefix):
            parameter = _PARAM.findall(endpoint.template[len(creator.template) :])[0]
            links[operation_id(endpoint)] = {
                "operationId": operation_id(endpoint),
                "parameters": {f"path.{parameter}": "$response.body#/id"},
                "description": f"the id of the {creator.response} this answers",
            }
    return links


def build_openapi(
    base_url: str = "http://127.0.0.1:8080", *, served: bool = True
) -> dict[str, Any]:
    """The OpenAPI 3.1 document (a fresh dict): by default the one the reference serves by,
    with its choices where the interface is silent (``reference_choices``); with
    ``served=False`` only what the interface states."""
    root = schemas_dir()
    endpoints = ENDPOINTS + (SERVED_ONLY if served else ())
    paths: dict[str, dict[str, Any]] = {}
    for endpoint in endpoints:
        operation = _operation(endpoint, served)
        links = _links(endpoint, endpoints)
        for name, link in id_links(endpoint, endpoints, served, operation_id).items():
            links[name] = {**links.get(name, {}), **link}
        if links:
            success = next(key for key in operation["responses"] if key.startswith("2"))
            operation["responses"][success]["links"] = links
        paths.setdefault(endpoint.template, {})[endpoint.method.lower()] = operation
    webhook = {
        "post": {
            "operationId": "webhook_event",
            "summary": "§6 a signed event delivered to the platform's webhookEndpoint",
            "parameters": [
                {
                    "name": "X-Service-Signature",
                    "in": "header",
                    "required": True,
                    "schema": {"type": "string"},
                    "description": "base64 signature of the exact body (SHA-256)",
                }
            ],
            "requestBody": {
                "required": True,
                "content": {"application/json": {"schema": _ref("webhooks/envelope")}},
            },
            "responses": {"2XX": {"description": "received"}},
        }
    }
    return copy.deepcopy(
        {
            "openapi": "3.1.0",
            "jsonSchemaDialect": "https://json-schema.org/draft/2020-12/schema",
            "info": {
                "title": "Global Payments Service Interface",
                "version": INTERFACE_VERSION,
                "description": "Generated by the GPSI conformance kit "
                f"{SUITE_VERSION} from its JSON Schemas and endpoint map: the endpoints whose "
                "shapes the interface shows. Schemas allow additional properties. "
                + (
                    "This is the document the reference sandbox serves by: where the "
                    f"interface is silent, `{CHOICE_KEY}` marks the reference's own choices "
                    "(`conformance openapi --interface-only` leaves them out)."
                    if served
                    else "Only what the interface states."
                ),
            },
            "servers": [
                {
                    "url": "{root}/" + INTERFACE_VERSION,
                    "variables": {"root": {"default": base_url.rstrip("/")}},
                }
            ],
            "security": [{"basic": []}],
            "paths": dict(sorted(paths.items())),
            "webhooks": {"event": webhook},
            "components": {
                "securitySchemes": {
                    "basic": {
                        "type": "http",
                        "scheme": "basic",
                        "description": "§5: HTTP Basic <token id>:<client secret>",
                    }
                },
                "schemas": _components(root, served),
            },
        }
    )


def render(document: dict[str, Any]) -> str:
    return json.dumps(document, indent=2, ensure_ascii=False) + "\n"


def main(argv: list[str]) -> int:
    import argparse

    parser = argparse.ArgumentParser(
        prog="conformance openapi",
        description="Write the OpenAPI 3.1 document of the interface (from the kit's schemas).",
    )
    parser.add_argument("--output", "-o", help="file to write (default: standard output)")
    parser.add_argument(
        "--interface-only",
        action="store_true",
        help="leave out the reference sandbox's choices where the interface is silent "
        "(for fuzzing another server)",
    )
    parser.add_argument(
        "--server",
        default="http://127.0.0.1:8080",
        help="server root the document names (without the version segment)",
    )
    try:
        ns = parser.parse_args(argv)
    except SystemExit as exc:
        return int(exc.code or 0)
    text = render(build_openapi(ns.server, served=not ns.interface_only))
    if ns.output:
        Path(ns.output).write_text(text, encoding="utf-8")
    else:
        print(text, end="")
    return 0
