"""The Starlette application: routers under the versioned base path, auth, error envelope,
the unauthenticated hosted pages beside them, and the webhook worker in the lifespan."""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager

from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.routing import BaseRoute, Mount

from reference import (
    account_states,
    accounts_api,
    agent_approvals,
    agents,
    card_simulators,
    card_tokenize,
    cards,
    config_api,
    contact_verification,
    customers_api,
    documents,
    external_accounts,
    hosted,
    incoming,
    invitations,
    jit,
    kyc_links,
    limits,
    owners,
    ownership,
    quotes_api,
    rate_refusals,
    rule_based,
    sandbox_api,
    sca_api,
    stablecoins,
    transactions_api,
    transfers_legacy,
    uma_incoming,
    verifications,
    wallet_accounts,
    wallet_api,
)
from reference.agent_policy import AgentPolicyMiddleware
from reference.auth import BasicAuthMiddleware
from reference.errors import EXCEPTION_HANDLERS
from reference.method_routing import method_routes
from reference.payout_scenarios import SlowSettler
from reference.services import Services

# One entry per API module; a new area (customers, quotes, ...) adds its ROUTES here.
# Starlette matches in order: customers_api lists its fixed paths before /{customerId}, and
# the account routers (/customers/internal-accounts, /customers/external-accounts) go first.
ROUTERS: Sequence[Sequence[BaseRoute]] = (
    config_api.ROUTES,
    accounts_api.ROUTES,
    account_states.ROUTES,
    rule_based.ROUTES,
    external_accounts.ROUTES,
    ownership.ROUTES,
    incoming.ROUTES,
    customers_api.ROUTES,
    contact_verification.ROUTES,
    kyc_links.ROUTES,
    owners.ROUTES,
    documents.ROUTES,
    verifications.ROUTES,
    sandbox_api.ROUTES,
    quotes_api.ROUTES,
    sca_api.ROUTES,
    transactions_api.ROUTES,
    limits.ROUTES,
    rate_refusals.ROUTES,
    jit.ROUTES,
    transfers_legacy.ROUTES,
    uma_incoming.ROUTES,
    wallet_api.ROUTES,
    wallet_accounts.ROUTES,
    cards.ROUTES,
    agents.ROUTES,
    agent_approvals.ROUTES,
    invitations.ROUTES,
    stablecoins.ROUTES,
    card_tokenize.ROUTES,
    card_simulators.ROUTES,
)


def create_app(services: Services) -> Starlette:
    """The ASGI app serving ``services``; the worker runs while the app is up."""

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        await services.delivery.start()
        settler = SlowSettler(services)  # completes 003 slow payouts when due
        settler.start()
        try:
            yield
        finally:
            settler.stop()
            await services.delivery.stop()

    api = Mount(
        services.settings.base_path,
        routes=method_routes([route for routes in ROUTERS for route in routes]),
        middleware=[
            Middleware(BasicAuthMiddleware, services=services),
            Middleware(AgentPolicyMiddleware, services=services),
        ],
    )
    # Hosted pages are opened by end users in a browser: outside the API, no credentials.
    routes: list[BaseRoute] = [*hosted.ROUTES, api]
    app = Starlette(routes=routes, exception_handlers=EXCEPTION_HANDLERS, lifespan=lifespan)
    app.state.services = services
    return app
