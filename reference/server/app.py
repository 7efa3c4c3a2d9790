"""The Starlette application: routers under the versioned base path, auth, error envelope,
the unauthenticated hosted pages beside them, and the webhook worker in the lifespan; and
the joins where a lower area calls into a higher one (``join_areas``)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager

from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.routing import BaseRoute, Mount

from reference.accounts import api as accounts_api
from reference.accounts import external_accounts, internal_accounts, ownership, rule_based
from reference.accounts import states as account_states
from reference.agents import approvals as agent_approvals
from reference.agents import delegation as agents
from reference.agents.policy import AgentPolicyMiddleware
from reference.cards import issuing as cards
from reference.cards import simulators as card_simulators
from reference.cards import tokenize as card_tokenize
from reference.client_check.journal import Journal
from reference.client_check.middleware import ClientCheckMiddleware
from reference.configuration import api as config_api
from reference.customers import api as customers_api
from reference.customers import (
    contact_verification,
    documents,
    hosted,
    kyc_links,
    owners,
    verifications,
)
from reference.customers import store as customer_store
from reference.invitations import claims as invitations
from reference.kernel.errors import EXCEPTION_HANDLERS, UnexpectedErrors
from reference.kernel.latency import ResponseDelayMiddleware
from reference.kernel.method_routing import method_routes
from reference.kernel.services import Services
from reference.payments import (
    authorization,
    incoming,
    jit,
    limits,
    quotes_api,
    rate_refusals,
    stablecoins,
    transactions_api,
    transfers_legacy,
    uma_incoming,
)
from reference.payments.payout_scenarios import SlowSettler
from reference.sca import api as sca_api
from reference.sca import authentication as sca
from reference.server.authentication import BasicAuthMiddleware
from reference.wallet import accounts as wallet_accounts
from reference.wallet import api as wallet_api
from reference.webhooks import sandbox_api

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


def join_areas() -> None:
    """Install the calls that go up the areas: each lower area names what it needs (a hook
    or a protocol) and the area above provides it here, so imports go one way. Installing
    again replaces, so building several apps in one process is safe."""
    # a stored customer's internal accounts follow it, in the same write
    customer_store.install_on_stored(internal_accounts.sync_customer)
    # an embedded wallet's privacy flag, on its InternalAccount body
    internal_accounts.install_type_fields(
        internal_accounts.EMBEDDED_WALLET, wallet_accounts.account_fields
    )
    # strong customer authentication before a quote's money moves
    authorization.install(sca)


def create_app(services: Services, *, client_check: Journal | None = None) -> Starlette:
    """The ASGI app serving ``services``; the worker runs while the app is up. With a
    ``client_check`` journal, every API request is also judged by the client rules."""
    join_areas()

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

    delay_s = services.settings.response_delay_s
    delay = [Middleware(ResponseDelayMiddleware, delay_s=delay_s)] if delay_s > 0 else []
    judge = (
        [Middleware(ClientCheckMiddleware, services=services, journal=client_check)]
        if client_check is not None
        else []
    )
    api = Mount(
        services.settings.base_path,
        routes=method_routes([route for routes in ROUTERS for route in routes]),
        middleware=[
            *judge,
            *delay,
            Middleware(BasicAuthMiddleware, services=services),
            Middleware(AgentPolicyMiddleware, services=services),
        ],
    )
    # Hosted pages are opened by end users in a browser: outside the API, no credentials.
    routes: list[BaseRoute] = [*hosted.ROUTES, api]
    app = Starlette(
        routes=routes,
        exception_handlers=EXCEPTION_HANDLERS,
        middleware=[Middleware(UnexpectedErrors, settings=services.settings)],
        lifespan=lifespan,
    )
    app.state.services = services
    return app
