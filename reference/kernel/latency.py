"""Added latency before every API answer (``--response-delay``), to stand in for a remote
target: with it a benchmark shows how the suite's workers scale when the target's latency,
not the suite's CPU, bounds a run. The wait is asynchronous, so requests still overlap."""

from __future__ import annotations

import asyncio

from starlette.types import ASGIApp, Receive, Scope, Send


class ResponseDelayMiddleware:
    """Waits ``delay_s`` before handing each HTTP request on."""

    def __init__(self, app: ASGIApp, delay_s: float) -> None:
        self.app = app
        self.delay_s = delay_s

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            await asyncio.sleep(self.delay_s)
        await self.app(scope, receive, send)
