"""Assertions shared by the suites: each reads like the clause it checks."""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from typing import Any

from conformance.contract import clauses
from conformance.contract.error_bodies import FieldPath, field_errors, reason_of, unnamed_fields
from conformance.contract.error_codes import carries_code, code_of
from conformance.contract.failures import ConformanceFailure, check
from conformance.contract.schemas import default_registry, format_path
from conformance.exchange.client import ApiResponse
from conformance.exchange.schema_check import schema_failure
from conformance.ground.hookspecs import HookSpec, hook_name

__all__ = [
    "adapter_record",
    "assert_invalid_input",
    "assert_status",
    "assert_unauthorized",
    "error_code",
    "has_code",
    "required_json",
]

ERRORS_CLAUSE = clauses.ERRORS
AUTH_CLAUSE = clauses.AUTHENTICATION
UNAUTHORIZED_REQUIREMENT = "AUTH-401-REASON"  # the code and reason of every 401


def error_code(response: ApiResponse) -> str | None:
    """The code an error answer carries (§7; ``contract/error_codes.py``), for reports."""
    return code_of(response.json if response.is_json else None)


def has_code(response: ApiResponse, code: str) -> bool:
    """Whether the answer's body carries ``code`` as the value of a top-level member (§7
    names the codes, not their member)."""
    return carries_code(response.json if response.is_json else None, code)


def assert_status(
    response: ApiResponse,
    expected: int,
    clause: str,
    statement: str,
    *,
    requirement: str | None = None,
) -> None:
    """Fail with ``clause`` unless the response has the ``expected`` status (charged to
    ``requirement``, when the test carries it: ``contract/failures.py`` ``fail``)."""
    __tracebackhide__ = True
    check(
        response.status == expected,
        clause,
        statement,
        expected=expected,
        observed=response.status,
        exchange=response.exchange,
        requirement=requirement,
    )


def required_json(
    response: ApiResponse,
    clause: str,
    statement: str,
    *,
    status: int | Collection[int] | None = None,
    hint: str | None = None,
    requirement: str | None = None,
) -> Any:
    """The JSON of an answer the interface says succeeds; fails with ``clause`` unless the
    status is ``status`` (one of them, for a collection; any 2xx when None), showing the
    status and the start of the body (and ``hint``, a next step for the implementer;
    ``requirement``, the one the status is about, see ``fail``).

    The one way to write "call, require the stated status, return the JSON":
    ``quote = required_json(client.post("/quotes", json=body), CLAUSE, "POST /quotes ...")``.
    """
    __tracebackhide__ = True
    expected: object
    if status is None:
        succeeded, expected = 200 <= response.status < 300, "2xx"
    elif isinstance(status, int):
        succeeded, expected = response.status == status, status
    else:
        succeeded, expected = response.status in status, " or ".join(map(str, status))
    check(
        succeeded,
        clause,
        statement,
        expected=expected,
        observed=(response.status, response.content[:300]),
        hint=hint,
        exchange=response.exchange,
        requirement=requirement,
    )
    return response.json


def assert_invalid_input(
    response: ApiResponse,
    invalid_paths: Sequence[FieldPath],
    clause: str = ERRORS_CLAUSE,
    *,
    requirement: str | None = None,
) -> None:
    """A 400 INVALID_INPUT whose ``details.errors[]`` name every invalid field, with
    constraints. An answer other than 400 breaks ``requirement`` (the rule that refuses the
    input); the code, the envelope and the fields named, the ``ERROR-400-*`` rules."""
    __tracebackhide__ = True
    shown = [format_path(p) for p in invalid_paths]
    assert_status(
        response,
        400,
        clause,
        f"an invalid request answers 400 INVALID_INPUT ({', '.join(shown)})",
        requirement=requirement,
    )
    body = response.json
    check(
        carries_code(body, "INVALID_INPUT"),
        ERRORS_CLAUSE,
        "a validation error carries the code INVALID_INPUT",
        observed=code_of(body) if isinstance(body, dict) else body,
        exchange=response.exchange,
        requirement="ERROR-400-INVALID-INPUT",
    )
    errors = field_errors(body)
    check(
        errors and all(e.path for e in errors) and all(e.constraint for e in errors),
        ERRORS_CLAUSE,
        "details.errors[] lists the invalid fields, each with a machine-readable constraint",
        observed=[e.entry for e in errors] or body.get("details"),
        exchange=response.exchange,
        requirement="ERROR-400-ENVELOPE",
    )
    missing = unnamed_fields(body, invalid_paths)
    if missing:
        failure = ConformanceFailure(
            ERRORS_CLAUSE,
            "validation errors list every invalid field at once in details.errors[]",
            expected=shown,
            observed=[format_path(e.path) for e in errors if e.path],
            hint=f"not named: {', '.join(format_path(p) for p in missing)}",
            exchange=response.exchange,
            requirement="ERROR-400-ALL-FIELDS",
        )
        # the fields differ from request to request (a generated one, say); the defect not
        failure.cause = "validation errors do not name every invalid field at once"
        raise failure


def assert_unauthorized(
    response: ApiResponse, statement: str, *, requirement: str | None = None
) -> None:
    """A 401 UNAUTHORIZED whose ``reason`` names the failed check: a status other than 401
    breaks ``requirement`` (the check the test is about), a 401 without them the 401's own
    rule (``AUTH-401-REASON``)."""
    __tracebackhide__ = True
    assert_status(response, 401, AUTH_CLAUSE, statement, requirement=requirement)
    body = response.json if response.content else None
    code = code_of(body)
    check(
        carries_code(body, "UNAUTHORIZED"),
        clauses.ERRORS,
        "failed authentication answers 401 with the code UNAUTHORIZED",
        observed=code,
        exchange=response.exchange,
        requirement=UNAUTHORIZED_REQUIREMENT,
    )
    reason = reason_of(body)
    if not (isinstance(reason, str) and reason.strip()) and response.is_json:
        # the 401's own shape: the same failure, charged to AUTH-401-REASON once, that every
        # other test meeting this 401 on the way is blocked by (one cause, not one per test)
        shape = schema_failure(response, default_registry())
        if shape is not None:
            raise shape
    check(
        isinstance(reason, str) and reason.strip() != "",
        AUTH_CLAUSE,
        "authentication failures return 401 UNAUTHORIZED with a reason naming the failed check",
        observed=body,
        exchange=response.exchange,
        requirement=UNAUTHORIZED_REQUIREMENT,
    )


def adapter_record(answer: Any, hook: HookSpec, clause: str, what: str) -> dict[str, Any]:
    """An adapter hook's answer as a record naming a non-empty string ``id``, or a failure
    naming ``clause`` and the hook (what the interface hides, the adapter answers)."""
    __tracebackhide__ = True
    check(
        isinstance(answer, Mapping) and isinstance(answer.get("id"), str) and answer["id"],
        clause,
        f"{what} is a record with an id",
        observed=answer,
        hint=f"the adapter hook {hook_name(hook)} answers it",
    )
    return dict(answer)
