"""The one layer that reads request bodies: bounded, strict UTF-8, strict JSON (SANDBOX.md,
"Request bodies").

Every body the sandbox reads comes through here: ``api_route`` for JSON and multipart
operations, and the agent policy, which reads a body before routing. A body is bounded
before it is read (a declared ``Content-Length`` over the limit is refused unread, and the
bytes are counted as they stream), and a JSON body must be UTF-8 and JSON without
surprises: no lone UTF-16 surrogates, no duplicate member names, no ``NaN``/``Infinity``,
nesting at most ``MAX_DEPTH`` deep. Integers are bounded where a field is read
(``Problems.integer``: the signed 64-bit range SQLite stores, or the field's own cap), not
here: a member no operation reads is ignored whatever it holds. Every problem is
``400 INVALID_INPUT`` (§7: "invalid request"), naming the field where there is one, so no
malformed value reaches a handler, the database or the encoder.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from starlette.datastructures import Headers
from starlette.requests import Request
from starlette.types import Message, Receive

from reference.kernel.errors import FieldError, InvalidInput
from reference.kernel.validation import at

MAX_DOCUMENT_BYTES = 10 * 1024 * 1024  # §8: an uploaded document is at most 10 MB
_FORM_OVERHEAD = 64 * 1024  # boundaries, part headers and the short text fields
MAX_DEPTH = 32  # the deepest body any operation takes is under 8 levels


@dataclass(frozen=True, slots=True)
class BodyLimit:
    """How many bytes an operation's body may have, and the field the refusal names."""

    max_bytes: int
    field: str = "body"
    message: str = "must be at most 1 MiB (1048576 bytes)"

    def refusal(self) -> InvalidInput:
        """``400 INVALID_INPUT`` on ``field``, constraint ``MAX_SIZE``."""
        return InvalidInput([FieldError(self.field, "MAX_SIZE", self.message)])


# JSON bodies are small records: a megabyte is far above any of them and far below what
# would hold the event loop while it parses.
JSON_LIMIT = BodyLimit(1024 * 1024)
DOCUMENT_LIMIT = BodyLimit(MAX_DOCUMENT_BYTES + _FORM_OVERHEAD, "file", "must be at most 10 MB")
LARGEST_LIMIT = DOCUMENT_LIMIT  # what a reader before routing may have to hold


def _error(field: str, constraint: str, message: str) -> InvalidInput:
    return InvalidInput([FieldError(field, constraint, message)])


def check_declared_length(headers: Headers, limit: BodyLimit) -> None:
    """Refuse a declared ``Content-Length`` over ``limit`` before reading a byte of the body."""
    declared = headers.get("content-length")
    if declared is None:
        return
    if not declared.strip().isdigit():
        raise _error("Content-Length", "INTEGER", "must be a number of bytes")
    if int(declared) > limit.max_bytes:
        raise limit.refusal()


def capped_receive(receive: Receive, limit: BodyLimit) -> Receive:
    """``receive``, refusing the body as soon as more than ``limit`` bytes have arrived."""
    received = 0

    async def counting() -> Message:
        nonlocal received
        message = await receive()
        received += len(message.get("body", b""))
        if received > limit.max_bytes:
            raise limit.refusal()
        return message

    return counting


def bounded(request: Request, limit: BodyLimit) -> Request:
    """``request`` whose body is refused past ``limit`` (the declared length checked now)."""
    check_declared_length(request.headers, limit)
    return Request(request.scope, capped_receive(request.receive, limit))


async def read_raw(receive: Receive, headers: Headers, limit: BodyLimit) -> list[Message]:
    """Every ``http.request`` message of a body within ``limit``, for a reader that must
    hand them on (the agent policy replays them to the route)."""
    check_declared_length(headers, limit)
    counting = capped_receive(receive, limit)
    messages: list[Message] = []
    while True:
        message = await counting()
        messages.append(message)
        if message["type"] != "http.request" or not message.get("more_body"):
            return messages


class _Refused(ValueError):
    """A JSON text that parses but is refused: where, which rule, why."""

    def __init__(self, field: str, constraint: str, message: str) -> None:
        super().__init__(message)
        self.error = FieldError(field, constraint, message)


def _no_constant(name: str) -> Any:
    raise _Refused("body", "JSON", f"{name} is not JSON")


_EXACT = 2**53  # every integer up to here is exact as a float


def _finite(text: str) -> float | int:
    """A JSON number written with a fraction or exponent. One with no fractional part
    (``1.0``, ``1e3``) is an integer, as JSON Schema counts it, so an integer field takes it
    as what it says; past 2^53 a float no longer knows its digits, so it stays a float."""
    value = float(text)
    if not math.isfinite(value):  # 1e400 parses as infinity
        raise _Refused("body", "JSON", f"{text} is out of range")
    if value.is_integer() and abs(value) <= _EXACT:
        return int(value)
    return value


def _unique_members(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    result: dict[str, Any] = {}
    for key, value in pairs:
        if key in result:
            # The parser does not know where the object is; the walk after it does not see
            # the duplicate any more, so the member's name is the best field we have.
            raise _Refused(_printable(key), "DUPLICATE_MEMBER", "appears twice in one object")
        result[key] = value
    return result


def _printable(name: str) -> str:
    """A member name fit to echo in an error: lone surrogates written as ``\\udxxx``."""
    return name.encode("utf-8", "backslashreplace").decode("utf-8")


def _has_surrogate(text: str) -> bool:
    # json.loads joins a valid \\uD83D\\uDE00 pair; what stays in the surrogate range is lone
    return any("\ud800" <= char <= "\udfff" for char in text)


def _check_values(value: Any, path: str, depth: int, errors: list[FieldError]) -> None:
    """Record every string UTF-8 cannot carry, and nesting past ``MAX_DEPTH``."""
    field = path or "body"
    if depth > MAX_DEPTH:
        errors.append(FieldError(field, "MAX_DEPTH", f"nests deeper than {MAX_DEPTH} levels"))
        return
    if isinstance(value, str):
        if _has_surrogate(value):
            errors.append(FieldError(field, "UNICODE", "contains a lone UTF-16 surrogate"))
    elif isinstance(value, Mapping):
        for key, item in value.items():
            if _has_surrogate(key):
                errors.append(
                    FieldError(at(path, _printable(key)), "UNICODE", "name has a lone surrogate")
                )
            else:
                _check_values(item, at(path, key), depth + 1, errors)
    elif isinstance(value, list):
        for index, item in enumerate(value):
            _check_values(item, at(path, index), depth + 1, errors)


class JsonRefused(ValueError):
    """A JSON text refused by ``strict_loads``: every problem found, as field errors."""

    def __init__(self, errors: list[FieldError]) -> None:
        super().__init__("; ".join(f"{e.field}: {e.message}" for e in errors))
        self.errors = errors


def strict_loads(raw: bytes | str) -> Any:
    """The JSON value of ``raw`` under the rules of this module, or ``JsonRefused``.

    Also for JSON carried inside a body (a JWT's segments, a passkey's client data, a
    bundle), so what it holds meets the same rules; it is a ``ValueError``, as ``json.loads``
    raises.
    """
    try:
        text = raw.decode("utf-8") if isinstance(raw, bytes) else raw
    except UnicodeDecodeError as exc:
        error = FieldError("body", "UTF8", f"must be UTF-8: bad byte at offset {exc.start}")
        raise JsonRefused([error]) from exc
    try:
        value = json.loads(
            text,
            parse_constant=_no_constant,
            parse_float=_finite,
            object_pairs_hook=_unique_members,
        )
    except _Refused as refused:
        raise JsonRefused([refused.error]) from refused
    except RecursionError as exc:
        error = FieldError("body", "MAX_DEPTH", f"nests deeper than {MAX_DEPTH} levels")
        raise JsonRefused([error]) from exc
    except ValueError as exc:  # JSONDecodeError, and integers of more than 4300 digits
        raise JsonRefused([FieldError("body", "JSON", f"must be valid JSON: {exc}")]) from exc
    errors: list[FieldError] = []
    _check_values(value, "", 0, errors)
    if errors:
        raise JsonRefused(errors)
    return value


def decode_json(raw: bytes) -> Any:
    """The JSON value of a request body, or ``400 INVALID_INPUT`` naming what is wrong."""
    if not raw.strip():
        raise _error("body", "REQUIRED", "a JSON object body is required")
    try:
        return strict_loads(raw)
    except JsonRefused as refused:
        raise InvalidInput(refused.errors) from refused


def decode_json_object(raw: bytes) -> dict[str, Any]:
    """``decode_json``, which must give a JSON object."""
    value = decode_json(raw)
    if not isinstance(value, dict):
        raise _error("body", "TYPE_OBJECT", "must be a JSON object")
    return value


async def read_json_object(request: Request) -> dict[str, Any]:
    """The request body as a JSON object, or 400 ``INVALID_INPUT`` (field ``body`` unless a
    value inside is at fault). Bound the request first (``bounded``)."""
    return decode_json_object(await request.body())
