"""HTTP Bearer authentication of agents (§5: the ``accessToken`` returned when redeeming a
device code). Strict like Basic: every failure is 401 ``UNAUTHORIZED`` with a ``reason``."""

from __future__ import annotations

from reference.agents import store as agent_store
from reference.kernel.errors import Unauthorized
from reference.kernel.platforms import Platform, all_platforms
from reference.kernel.services import Services

AGENT_SCOPE_KEY = "reference.agent"  # the agent a Bearer request acts as
REASON_EMPTY = "Bearer token is empty"
REASON_UNKNOWN = "unknown or revoked agent access token"
REASON_INACTIVE = "the agent of this access token is not active"


def is_bearer(header: str | None) -> bool:
    """Whether an ``Authorization`` value uses the Bearer scheme."""
    return header is not None and header.strip().partition(" ")[0].lower() == "bearer"


def authenticate(services: Services, header: str) -> tuple[Platform, agent_store.Agent]:
    """The platform and agent of a Bearer ``Authorization`` value, or ``Unauthorized``."""
    token = header.strip().partition(" ")[2].strip()
    if not token:
        raise Unauthorized(REASON_EMPTY)
    agent = agent_store.by_token(services.db, token)
    if agent is None:
        raise Unauthorized(REASON_UNKNOWN)
    if agent.status != "ACTIVE":
        raise Unauthorized(REASON_INACTIVE)
    platform = next((p for p in all_platforms(services.db) if p.id == agent.platform_id), None)
    if platform is None:
        raise Unauthorized(REASON_UNKNOWN)
    return platform, agent
