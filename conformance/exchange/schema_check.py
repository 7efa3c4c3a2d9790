"""The second check every validated answer gets: its body matches its endpoint's schema
(``contract/endpoint_schemas.py`` names the schema; ``answer_checks.py`` runs the check)."""

from __future__ import annotations

import re

from conformance.contract import endpoint_schemas as contract
from conformance.contract.answer_owners import owners_of
from conformance.contract.failures import ConformanceFailure, shorten
from conformance.contract.schemas import SchemaRegistry, format_path
from conformance.exchange.answer import ApiResponse, Text
from conformance.exchange.answer_checks import CheckContext, answer_check

__all__ = ["TIMESTAMP_REQUIREMENT", "ValidBodies", "matches_schema", "schema_failure"]

_SHOWN = 8  # violations a message lists
# §0 Conventions: "Every timestamp is an ISO 8601 string in UTC" (common.json's Timestamp)
TIMESTAMP_REQUIREMENT = "COMMON-TIMESTAMP-UTC"
_NOT_A_TIMESTAMP = "is not a valid Timestamp"
_INDEX = re.compile(r"\[\d+\]")  # which item of a list broke the shape varies; the break does not


class ValidBodies:
    """Bodies (schema, list or not, exact bytes) that passed their schema: a body seen again
    is not validated again (polls of GET /config, transaction lists while waiting)."""

    def __init__(self, kept: int = 1024) -> None:
        self._kept = kept
        self._seen: set[tuple[str, bool, bytes]] = set()

    def __contains__(self, key: tuple[str, bool, bytes]) -> bool:
        return key in self._seen

    def add(self, key: tuple[str, bool, bytes]) -> None:
        if len(self._seen) >= self._kept:
            self._seen.clear()
        self._seen.add(key)


@answer_check("schema", order=20)
def matches_schema(answer: ApiResponse, context: CheckContext) -> None:
    """Fail unless the body is JSON matching its endpoint's schema."""
    __tracebackhide__ = True
    if not answer.content:
        _must_not_be_empty(answer)
        return
    ref = contract.response_schema(answer.method, answer.path, answer.status, answer.json)
    if ref is None:
        return
    seen = (ref.name, ref.is_list, answer.content)
    if seen in context.client.valid_bodies:  # the same bytes passed this schema already
        return
    failure = schema_failure(answer, context.client.registry)
    if failure is not None:
        raise failure
    context.client.valid_bodies.add(seen)


def schema_failure(answer: ApiResponse, registry: SchemaRegistry) -> ConformanceFailure | None:
    """The failure of a JSON answer against its endpoint's schema, charged to the
    requirements that state the shape (``contract/answer_owners.py``), or None."""
    body = answer.json
    ref = contract.response_schema(answer.method, answer.path, answer.status, body)
    if ref is None:
        return None
    instances = [body]
    if ref.is_list:
        items = contract.list_items(body)
        if items is None:
            return ConformanceFailure(
                ref.clause,
                f"{answer.method} {ref.endpoint} must return a list",
                observed=shorten(body, 200),
                exchange=answer.exchange,
            )
        instances = items
    problems, fields, breaks = [], [], []
    first: tuple[str | int, ...] | None = None
    for index, instance in enumerate(instances):
        for violation in registry.violations(ref.name, instance):
            where = format_path((index, *violation.location)) if ref.is_list else violation.path
            problems.append(f"{where}: {violation.message}")
            fields.append(violation.path if _NOT_A_TIMESTAMP in violation.message else None)
            breaks.append(f"{_INDEX.sub('[*]', where)} ({violation.keyword})")
            first = violation.location if first is None else first
    if not problems:
        return None
    shown = "; ".join(problems[:_SHOWN]) + (" ..." if len(problems) > _SHOWN else "")
    failure = ConformanceFailure(
        registry.clause(ref.name) or ref.clause,
        f"the {answer.status} response of {answer.method} {ref.endpoint} must "
        f"match schema '{ref.name}' ({len(problems)} violation(s): {shown})",
        exchange=answer.exchange,
    )
    if all(fields):  # only timestamps that are not UTC: §0's rule, whatever the resource
        failure.charged_to = TIMESTAMP_REQUIREMENT
        named = ", ".join(sorted({str(f).rsplit(".", 1)[-1] for f in fields}))
        failure.cause = (
            f"{answer.method} {ref.endpoint} answers {named} as timestamps that are not UTC"
        )
    elif owners := owners_of(ref.name, first or ()):
        # the shape's own requirements, whichever endpoint answered it: the same difference
        # (where and which rule, not the value, which varies by test) is one cause
        failure.charged_to, failure.owners = owners[0], owners[1:]
        steady = sorted(set(breaks))
        failure.cause = f"answers of schema '{ref.name}' break it at " + "; ".join(steady[:_SHOWN])
    return failure


def _must_not_be_empty(answer: ApiResponse) -> None:
    """A 2xx answer whose endpoint returns a resource or a list carries one."""
    __tracebackhide__ = True
    if not 200 <= answer.status < 300:
        return
    ref = contract.response_schema(answer.method, answer.path, answer.status, {})
    if ref is not None:
        raise ConformanceFailure(
            ref.clause,
            f"the {answer.status} response of {answer.method} {ref.endpoint} "
            f"must carry {'a list' if ref.is_list else 'the resource'} (schema '{ref.name}')",
            observed=Text("an empty body"),
            exchange=answer.exchange,
        )
