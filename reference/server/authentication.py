"""The middleware that authenticates every API request: an agent's Bearer token
(``reference.agents.bearer``) or a platform's Basic credentials (``reference.kernel.auth``).

It joins the kernel's Basic auth and the agents area, so it lives in the assembly."""

from __future__ import annotations

from starlette.datastructures import Headers
from starlette.types import ASGIApp, Receive, Scope, Send

from reference.agents import bearer as agent_auth
from reference.agents.bearer import AGENT_SCOPE_KEY
from reference.kernel.auth import PLATFORM_SCOPE_KEY, anonymous_platform, authenticate
from reference.kernel.services import Services
from reference.kernel.sync_calls import call_sync


class BasicAuthMiddleware:
    """Authenticates every request under the versioned base path before routing.

    Unknown paths and methods under the base path also need credentials, so the sandbox
    does not tell anonymous callers which routes exist.
    """

    def __init__(self, app: ASGIApp, services: Services) -> None:
        self.app = app
        self.services = services

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            header = Headers(scope=scope).get("authorization")
            if agent_auth.is_bearer(header):  # an agent's access token (§5 HTTP Bearer)
                assert header is not None
                found = await call_sync(
                    self.services.settings, agent_auth.authenticate, self.services, header
                )
                scope[PLATFORM_SCOPE_KEY], scope[AGENT_SCOPE_KEY] = found
            elif header is None and (anonymous := anonymous_platform(self.services, scope["path"])):
                scope[PLATFORM_SCOPE_KEY] = anonymous
            else:
                # Basic credentials are checked in memory (``Services.api_tokens``): on the
                # event loop, without a thread hop.
                scope[PLATFORM_SCOPE_KEY] = authenticate(self.services, header)
        await self.app(scope, receive, send)
