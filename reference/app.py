"""The Starlette application: routers under the versioned base path, auth, error envelope,
and the webhook worker in the lifespan."""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager

from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.routing import BaseRoute, Mount

from reference import config_api, sandbox_api
from reference.auth import BasicAuthMiddleware
from reference.errors import EXCEPTION_HANDLERS
from reference.services import Services

# One entry per API module; a new area (customers, quotes, ...) adds its ROUTES here.
ROUTERS: Sequence[Sequence[BaseRoute]] = (
    config_api.ROUTES,
    sandbox_api.ROUTES,
)


def create_app(services: Services) -> Starlette:
    """The ASGI app serving ``services``; the worker runs while the app is up."""

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        await services.delivery.start()
        try:
            yield
        finally:
            await services.delivery.stop()

    api = Mount(
        services.settings.base_path,
        routes=[route for routes in ROUTERS for route in routes],
        middleware=[Middleware(BasicAuthMiddleware, services=services)],
    )
    app = Starlette(routes=[api], exception_handlers=EXCEPTION_HANDLERS, lifespan=lifespan)
    app.state.services = services
    return app
