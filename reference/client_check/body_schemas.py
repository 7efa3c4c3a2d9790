"""The request shapes the interface shows (``schemas/requests/``, shared with the kit, which
the sandbox may read but not import), by endpoint, and a body's every invalid field."""

from __future__ import annotations

import json
import re
from functools import cache
from pathlib import Path
from typing import Any

from jsonschema import Draft202012Validator
from jsonschema.exceptions import ValidationError
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT202012

_ROOT = Path(__file__).resolve().parents[2]
# a checkout keeps schemas/ beside the packages; an installed kit keeps it in its data
_SCHEMA_DIRS = (_ROOT / "schemas", _ROOT / "conformance" / "_data" / "schemas")
# jsonschema reports each missing member on its own, named only in the message
_REQUIRED = re.compile(r"^'(.+)' is a required property$")

# (method, path template under the versioned base, request schema) for every endpoint whose
# request body §4 shows; the others take no body, or one whose shape is not shown.
REQUEST_SCHEMAS: tuple[tuple[str, str, str], ...] = (
    ("POST", "/customers", "customer-create"),
    ("PATCH", "/customers/{customerId}", "customer-update"),
    ("POST", "/customers/{customerId}/kyc-link", "kyc-link-create"),
    ("POST", "/customers/{customerId}/verify-email/confirm", "contact-confirm"),
    ("POST", "/customers/{customerId}/verify-phone/confirm", "contact-confirm"),
    ("POST", "/beneficial-owners", "beneficial-owner-create"),
    ("POST", "/verifications", "verification-create"),
    ("POST", "/customers/external-accounts", "external-account-create"),
    ("POST", "/internal-accounts", "internal-account-create"),
    ("POST", "/quotes", "quote-create"),
    ("POST", "/quotes/{quoteId}/authorize", "quote-authorize"),
    ("PATCH", "/config", "config-patch"),
    ("POST", "/sandbox/send", "sandbox-send"),
    ("POST", "/sandbox/internal-accounts/{accountId}/fund", "sandbox-fund"),
    ("POST", "/auth/credentials", "credential-create"),
    ("POST", "/auth/credentials/{id}/challenge", "credential-challenge"),
    ("POST", "/auth/credentials/{id}/verify", "credential-verify"),
    # §4 shows no body here, so its schema holds only an object: what the reference chose
    # (targetPublicKey) is an x-reference-choice, which a validator ignores
    ("POST", "/internal-accounts/{id}/export", "wallet-export"),
)
# The request shapes whose body may be left out: an OTP credential's challenge sends
# nothing (§4), and the export's body is not shown.
OPTIONAL_BODIES = frozenset({"credential-challenge", "wallet-export"})


def matches(template: str, path: str) -> bool:
    """Whether ``path`` falls on ``template`` (``{name}`` is one non-empty segment)."""
    wanted, given = template.strip("/").split("/"), path.strip("/").split("/")
    return len(wanted) == len(given) and all(
        w == g or (w.startswith("{") and bool(g)) for w, g in zip(wanted, given, strict=True)
    )


def schema_for(method: str, path: str) -> str | None:
    """The request schema of the endpoint ``method path`` falls on, or None."""
    for one_method, template, name in REQUEST_SCHEMAS:
        if one_method == method and matches(template, path):
            return name
    return None


def _schema_dir() -> Path:
    for folder in _SCHEMA_DIRS:
        if (folder / "requests").is_dir():
            return folder
    raise FileNotFoundError(f"the request schemas are missing (looked in {_SCHEMA_DIRS})")


@cache
def _validators() -> dict[str, Draft202012Validator]:
    """A validator per request schema, with every document registered for its ``$ref``s."""
    folder = _schema_dir()
    documents = {
        path: json.loads(path.read_text(encoding="utf-8")) for path in folder.rglob("*.json")
    }
    registry: Registry[Any] = Registry().with_resources(
        (doc["$id"], Resource.from_contents(doc, default_specification=DRAFT202012))
        for doc in documents.values()
        if "$id" in doc
    )
    return {
        path.stem: Draft202012Validator(doc, registry=registry)
        for path, doc in documents.items()
        if path.parent.name == "requests"
    }


def field_name(error: ValidationError) -> str:
    """The field an error is about: its location, and for a missing member, the member."""
    parts = [str(p) if isinstance(p, str) else f"[{p}]" for p in error.absolute_path]
    text = ".".join(parts).replace(".[", "[")
    missing = _REQUIRED.match(error.message) if error.validator == "required" else None
    if missing:
        text = f"{text}.{missing[1]}" if text else missing[1]
    return text or "body"


def _short(error: ValidationError) -> str:
    """What is wrong, with the value as JSON (jsonschema shows Python's ``None``)."""
    if error.validator == "required" and _REQUIRED.match(error.message):
        message = "is required"
    elif error.validator == "type":
        value = json.dumps(error.instance, ensure_ascii=False, default=str)
        value = value if len(value) <= 60 else value[:60] + "..."
        message = f"must be of type {error.validator_value}; got {value}"
    else:
        message = str(error.message)
    return message if len(message) <= 200 else message[:200] + "..."


def invalid_fields(schema: str, body: Any) -> list[tuple[str, str]]:
    """Every invalid field of ``body`` under ``schema``, each once: (field, what is wrong),
    in order. A field two subschemas refuse (a date's pattern in two branches of one
    ``allOf``) is one invalid field, its distinct reasons joined."""
    validator = _validators()[schema]
    reasons: dict[str, list[str]] = {}
    for error in sorted(validator.iter_errors(body), key=lambda e: list(map(str, e.path))):
        said = reasons.setdefault(field_name(error), [])
        if (why := _short(error)) not in said:
            said.append(why)
    return [(name, "; and ".join(why)) for name, why in reasons.items()]


def clause_of(schema: str) -> str | None:
    """The §4 heading a request schema's description starts with (``§4 Accounts``)."""
    description = str(_validators()[schema].schema.get("description", ""))
    heading = description.partition(" — ")[0]
    return heading if heading.startswith("§") else None
