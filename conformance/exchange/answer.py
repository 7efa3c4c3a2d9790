"""An answer from the target as the suite reads it, and the first check every answer gets:
its body is JSON (``answer_checks.py``)."""

from __future__ import annotations

from functools import cached_property
from typing import Any

import httpx

from conformance.contract import endpoint_schemas
from conformance.contract.answer_owners import owners_of
from conformance.contract.failures import ConformanceFailure
from conformance.exchange.answer_checks import CheckContext, answer_check
from conformance.exchange.decoding import DecodeProblem, DuplicateMember, decode_json
from conformance.exchange.evidence import Exchange

__all__ = ["JSON_CLAUSE", "JSON_REQUIREMENT", "ApiResponse", "Text"]

JSON_CLAUSE = "Conventions"
JSON_REQUIREMENT = "COMMON-JSON-BODIES"


class Text(str):
    """A string shown as it is in a failure message (no quotes)."""

    def __repr__(self) -> str:
        return str(self)


class ApiResponse:
    """A response from the target with its evidence."""

    def __init__(
        self, method: str, path: str, status: int, headers: httpx.Headers, content: bytes,
        exchange: Exchange,
    ) -> None:  # fmt: skip
        self.method = method
        self.path = path
        self.status = status
        self.headers = headers
        self.content = content
        self.exchange = exchange
        # a failure an answer check found in the body, raised when the body is first read
        # (``held_checks.py``): a test judges the status it is about before the body
        self.held: ConformanceFailure | None = None
        self.held_raised = False

    def __repr__(self) -> str:
        return f"<ApiResponse {self.method} {self.path} {self.status}>"

    @property
    def json(self) -> Any:
        """The decoded JSON body; fails the test if the body is not JSON, or with the failure
        an answer check found in it."""
        __tracebackhide__ = True
        if self.held is not None:
            self.held_raised = True
            raise self.held
        return self._decoded

    @cached_property
    def _decoded(self) -> Any:
        __tracebackhide__ = True
        try:
            return decode_json(self.content)
        except DuplicateMember as problem:
            raise ConformanceFailure(
                JSON_CLAUSE,
                f"bodies are JSON ({JSON_REQUIREMENT}), and an object that names a member twice "
                f"is ambiguous; the {self.status} response of {self.method} {self.path} repeats "
                f"{problem.name!r} at {problem.where}",
                expected=Text(problem.expected),
                observed=Text(problem.received),
                hint="send each member once: which of the values a client reads differs from "
                "one JSON library to the next",
                exchange=self.exchange,
            ) from None
        except DecodeProblem as problem:
            raise ConformanceFailure(
                JSON_CLAUSE,
                f"bodies are JSON unless stated; the {self.status} response of "
                f"{self.method} {self.path} cannot be read",
                expected=Text(problem.expected),
                observed=Text(problem.received),
                hint=f"content-type was {self.headers.get('content-type')!r}",
                exchange=self.exchange,
            ) from None

    @property
    def is_json(self) -> bool:
        """Whether the body is JSON (one that repeats a member is, but reading it with
        :attr:`json` fails)."""
        try:
            decode_json(self.content)
        except DuplicateMember:
            return True
        except DecodeProblem:
            return False
        return True

    def field(self, *path: str | int) -> Any:
        """A nested value of the JSON body, or None where the path does not exist."""
        value: Any = self.json
        for key in path:
            if isinstance(key, int) and isinstance(value, list) and -len(value) <= key < len(value):
                value = value[key]
            elif isinstance(key, str) and isinstance(value, dict):
                value = value.get(key)
            else:
                return None
        return value


# charged to the requirements of the resource the body states (a repeated member is the
# resource tests' catch: a test about that resource fails, any other reading it is blocked);
# an answer no requirement owns the shape of fails the test reading it
@answer_check("decoding", order=10)
def body_is_json(answer: ApiResponse, context: CheckContext) -> None:
    """A body, when there is one, is JSON that names each member once."""
    __tracebackhide__ = True
    if not answer.content:
        return
    try:
        answer.json  # noqa: B018 - reading it decodes it, and fails the test if it cannot
    except ConformanceFailure as failure:
        ref = endpoint_schemas.response_schema(answer.method, answer.path, answer.status, None)
        owners = owners_of(ref.name) if ref is not None else ()
        if owners:
            failure.charged_to, failure.owners = owners[0], (*owners[1:], JSON_REQUIREMENT)
        raise
