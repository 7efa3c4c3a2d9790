"""The error envelope every failure is rendered in (SANDBOX.md, "Error envelope").

``{"status": N, "code": "<CODE>", "message": "...", "details"?: {...}, "reason"?: "..."}``
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from reference.kernel import variant
from reference.kernel.seams import seam
from reference.kernel.settings import ServerSettings

log = logging.getLogger(__name__)

ERROR_BODY = seam("errors.body", "the error envelope about to be answered (context: error)")

AUTH_REALM = 'Basic realm="GPSI sandbox", charset="UTF-8"'


@dataclass(frozen=True, slots=True)
class FieldError:
    """One invalid field: where it is, which rule it broke, and a sentence for people."""

    field: str
    constraint: str
    message: str

    def as_json(self) -> dict[str, str]:
        """The entry of ``details.errors[]``."""
        return {"field": self.field, "constraint": self.constraint, "message": self.message}


class ApiError(Exception):
    """An error answer: raise it anywhere below a route and the handler renders it."""

    def __init__(
        self,
        status: int,
        code: str,
        message: str,
        *,
        details: Mapping[str, Any] | None = None,
        reason: str | None = None,
        headers: Mapping[str, str] | None = None,
    ) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message
        self.details = dict(details) if details is not None else None
        self.reason = reason
        self.headers = dict(headers or {})

    def body(self) -> dict[str, Any]:
        """The JSON envelope of this error."""
        body: dict[str, Any] = {"status": self.status, "code": self.code, "message": self.message}
        if self.details is not None:
            body["details"] = self.details
        if self.reason is not None:
            body["reason"] = self.reason
        return body


class InvalidInput(ApiError):
    """400 ``INVALID_INPUT`` listing every invalid field at once (§7)."""

    def __init__(self, errors: Sequence[FieldError]) -> None:
        self.errors = tuple(errors)
        count = len(self.errors)
        names = ", ".join(dict.fromkeys(error.field for error in self.errors))  # each once
        super().__init__(
            400,
            "INVALID_INPUT",
            f"{count} invalid field{'' if count == 1 else 's'}: {names}",
            details={"errors": [error.as_json() for error in self.errors]},
        )


class RecordsNotFound(ApiError):
    """404 ``NOT_FOUND``: a well-formed body names records this platform does not have.

    The interface is silent on unknown ids; the reference treats an id in a body like one in
    a path (``GET /customers/{unknown}`` is 404 too), naming each such field in
    ``details.errors[]`` the way a 400 does, so a client can tell which id was wrong.
    """

    def __init__(self, errors: Sequence[FieldError]) -> None:
        self.errors = tuple(errors)
        names = ", ".join(error.field for error in self.errors)
        super().__init__(
            404,
            "NOT_FOUND",
            f"no such record: {names}",
            details={"errors": [error.as_json() for error in self.errors]},
        )


class RecordsInConflict(ApiError):
    """409 ``CONFLICT``: a well-formed body names records whose current state refuses the
    request (a customer of the other type, an account not usable yet, a currency the
    platform's configuration does not list).

    The interface is silent on these; §7 gives 409 to requests at odds with a record's
    state (a quote awaiting authorization, an idempotency key already used), and the
    refusal names each field in ``details.errors[]`` as a 400 does. A schema cannot state
    another record's state, so this is kept apart from ``INVALID_INPUT``.
    """

    def __init__(self, errors: Sequence[FieldError]) -> None:
        self.errors = tuple(errors)
        names = ", ".join(error.field for error in self.errors)
        super().__init__(
            409,
            "CONFLICT",
            f"the current state refuses: {names}",
            details={"errors": [error.as_json() for error in self.errors]},
        )


class Unauthorized(ApiError):
    """401 ``UNAUTHORIZED`` whose ``reason`` names the failed check (§5)."""

    def __init__(self, reason: str) -> None:
        super().__init__(
            401,
            "UNAUTHORIZED",
            "authentication failed",
            reason=reason,
            headers={"WWW-Authenticate": AUTH_REALM},
        )


def render(error: ApiError, settings: ServerSettings) -> JSONResponse:
    """The HTTP response for ``error``."""
    body = settings.seams.apply(ERROR_BODY, error.body(), error=error)
    if settings.variant:
        body = variant.error_body(body)
    return JSONResponse(body, status_code=error.status, headers=error.headers)


def _settings(request: Request) -> ServerSettings:
    settings: ServerSettings = request.app.state.services.settings
    return settings


async def handle_api_error(request: Request, exc: Exception) -> Response:
    """Exception handler for ``ApiError``."""
    assert isinstance(exc, ApiError)
    return render(exc, _settings(request))


_ROUTING_CODES = {404: "NOT_FOUND", 405: "METHOD_NOT_ALLOWED"}


async def handle_http_exception(request: Request, exc: Exception) -> Response:
    """Starlette's own 404/405 (unknown path, unknown method) in our envelope."""
    assert isinstance(exc, HTTPException)
    code = _ROUTING_CODES.get(exc.status_code, "HTTP_ERROR")
    message = exc.detail
    if exc.status_code == 404:
        message = f"no resource at {request.url.path}"
    elif exc.status_code == 405:
        allowed = (exc.headers or {}).get("Allow", "")
        message = f"{request.method} is not allowed on {request.url.path}; allowed: {allowed}"
    error = ApiError(exc.status_code, code, message, headers=exc.headers)
    return render(error, _settings(request))


class UnexpectedErrors:
    """The safety net: a bug below answers the 500 envelope and the connection stays usable.

    Starlette's own handler for ``Exception`` answers and then re-raises, and the server
    closes the connection on a re-raised error; this middleware answers and returns. After
    the answer has started nothing can be said any more, so the error goes on up then.
    """

    def __init__(self, app: ASGIApp, settings: ServerSettings) -> None:
        self.app = app
        self.settings = settings

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = False

        async def tracking(message: Message) -> None:
            nonlocal started
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, receive, tracking)
        except Exception:
            log.exception("unhandled error on %s %s", scope.get("method"), scope.get("path"))
            if started:
                raise
            error = ApiError(500, "INTERNAL_ERROR", "internal error in the reference sandbox")
            await render(error, self.settings)(scope, receive, send)


EXCEPTION_HANDLERS = {
    ApiError: handle_api_error,
    HTTPException: handle_http_exception,
}
