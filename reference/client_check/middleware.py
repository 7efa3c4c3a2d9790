"""The edge of the check: every request under the versioned base path is read whole (within
the largest body the sandbox takes), served unchanged, and then judged; the judgement goes
to the journal. A check that breaks never changes the sandbox's answer."""

from __future__ import annotations

import logging
from typing import Any

from starlette.datastructures import Headers
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from reference.client_check import excerpts, judgement, request_checks, uploads
from reference.client_check.journal import Journal
from reference.client_check.judgement import Finding, Judgement
from reference.kernel.errors import InvalidInput
from reference.kernel.request_body import LARGEST_LIMIT, check_declared_length, read_raw
from reference.kernel.services import Services

_LOG = logging.getLogger(__name__)


def _replay(messages: list[Message], receive: Receive) -> Receive:
    """A ``receive`` that hands out the body read already, then the connection's own."""
    pending = list(messages)

    async def replayed() -> Message:
        return pending.pop(0) if pending else await receive()

    return replayed


class ClientCheckMiddleware:
    """Judges each request by the client rules and journals what it found."""

    def __init__(self, app: ASGIApp, services: Services, journal: Journal) -> None:
        self.app = app
        self.services = services
        self.journal = journal

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = Headers(scope=scope)
        try:
            check_declared_length(headers, LARGEST_LIMIT)
        except InvalidInput:  # the sandbox refuses it unread, as without the check
            await self.app(scope, receive, send)
            return
        messages = await read_raw(receive, headers, LARGEST_LIMIT)
        judged, token = judgement.begin()
        try:
            await self.app(scope, _replay(messages, receive), send)
        finally:
            judgement.end(token)
            try:
                await self._judge(scope, headers, messages, judged)
            except Exception:  # a fault of the check itself: the answer is already sent
                _LOG.exception("client check: cannot judge %s %s", scope["method"], scope["path"])

    def _route_path(self, scope: Scope) -> str:
        path = str(scope["path"])
        base = self.services.settings.base_path
        return (path[len(base) :] or "/") if path.startswith(base) else path

    async def _judge(
        self, scope: Scope, headers: Headers, messages: list[Message], judged: Judgement
    ) -> None:
        method, path = str(scope["method"]), self._route_path(scope)
        raw = b"".join(m.get("body", b"") for m in messages if m["type"] == "http.request")

        async def upload_problems() -> list[str]:
            async def done() -> Message:
                return {"type": "http.disconnect"}

            return await uploads.upload_problems(scope, _replay(messages, done))

        seen = request_checks.SeenRequest(
            self.services, method, path, headers, raw, upload_problems
        )
        for check in request_checks.CHECKS:
            await check(seen, judged)
        self.journal.write(
            {"kind": "request", "method": method, "path": path, "checked": sorted(judged.checked)}
        )
        credentials = self.services.credentials
        shown = excerpts.without(
            (credentials.primary.secret, credentials.second.secret, credentials.production.secret),
            {
                "headers": excerpts.headers_excerpt(headers),
                "body": excerpts.body_excerpt(raw, headers.get("content-type", "")),
            },
        )
        for kind, found in (("finding", judged.findings), ("advisory", judged.advisories)):
            for one in found:
                self.journal.write(_record(kind, one, method, path, shown))


def _record(
    kind: str, found: Finding, method: str, path: str, shown: dict[str, Any]
) -> dict[str, Any]:
    return {
        "kind": kind,
        "rule": found.rule.id,
        "clause": found.clause,
        "part": found.rule.part,
        "message": found.message,
        "method": method,
        "path": path,
        "request": shown,
    }
